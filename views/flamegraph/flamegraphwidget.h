#pragma once

// FlameGraphWidget: an icicle drawn with QPainter. Width is time (wall, self in a bottom-up
// tree, A + B in a differential one), one row per stack depth from the top, colours from the
// name's hash in the timeline's palette (a differential tree goes red where B is slower, blue
// where it is faster), labels elided to fit. A click zooms into a frame (ancestors stay on top
// to click back to), Esc or Backspace goes back one zoom; hovering shows the frame's totals.
// A search highlights the frames whose name contains the text and fades the others.
// GUI thread only; it draws a tree built elsewhere and computes nothing heavy.

#include "views/flamegraph/flametree.h"

#include <QWidget>

#include <memory>
#include <vector>

namespace tracedesk::views {

class FlameGraphWidget : public QWidget
{
    Q_OBJECT

public:
    static constexpr int kRowHeight = 20;

    explicit FlameGraphWidget(QWidget *parent = nullptr);

    void setTree(std::shared_ptr<const FlameTree> tree);
    const std::shared_ptr<const FlameTree> &tree() const { return m_tree; }

    uint32_t focus() const { return m_focus; }
    // Zooms into `node` (remembering where it was, for back()).
    void zoomTo(uint32_t node);
    void back();
    void resetZoom();
    int zoomDepth() const { return int(m_history.size()); }

    void setSearch(const QString &text);
    QString search() const { return m_search; }
    // Frames whose name matches, and their time (outermost matches only, so nothing twice).
    int matchCount() const { return m_matchCount; }
    core::TimePs matchedTime() const { return m_matchedTime; }
    bool isMatch(uint32_t node) const { return node < m_match.size() && m_match[node]; }

    // Layout of the current frame, in widget coordinates (also for tests).
    std::vector<FlameRect> frameRects() const;
    QRectF rectOf(const FlameRect &r) const;
    // The node drawn at pos, or -1.
    int nodeAt(QPointF pos) const;
    QString toolTipFor(uint32_t node) const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

signals:
    void frameClicked(quint32 node);
    void focusChanged(quint32 node);
    void searchChanged(int matches);

protected:
    bool event(QEvent *event) override;
    void paintEvent(QPaintEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;

private:
    void setFocusNode(uint32_t node);
    QColor fillFor(uint32_t node, bool ancestor) const;

    std::shared_ptr<const FlameTree> m_tree;
    uint32_t m_focus = 0;
    std::vector<uint32_t> m_history;
    QString m_search;
    std::vector<uint8_t> m_match;
    int m_matchCount = 0;
    core::TimePs m_matchedTime = 0;
};

} // namespace tracedesk::views
