#pragma once

// TracksPanel: the Tracks dock's content — a filter box, a "Show empty planes" toggle and the
// tree of hosts, planes and tracks (TrackTreeModel behind a TrackFilterProxy). Clicking or
// activating a track emits trackActivated with its index in the trace, a plane planeActivated,
// so the window can reveal it in the timeline. Typing in the filter expands the tree so the
// matches show.

#include <QWidget>

#include <cstdint>

class QCheckBox;
class QLineEdit;
class QTreeView;

namespace tracedesk::views {

class TrackFilterProxy;
class TrackTreeModel;

class TracksPanel : public QWidget
{
    Q_OBJECT

public:
    explicit TracksPanel(TrackTreeModel *model, QWidget *parent = nullptr);

    QTreeView *treeView() const { return m_view; }
    TrackFilterProxy *proxy() const { return m_proxy; }
    QLineEdit *filterEdit() const { return m_filter; }
    QCheckBox *showEmptyBox() const { return m_showEmpty; }
    // Hosts and planes open, tracks as leaves (after a new trace or a filter change).
    void expandDefault();

signals:
    void trackActivated(uint32_t track);
    void planeActivated(uint32_t plane);

private:
    void activate(const QModelIndex &proxyIndex);

    TrackTreeModel *m_model = nullptr;
    TrackFilterProxy *m_proxy = nullptr;
    QTreeView *m_view = nullptr;
    QLineEdit *m_filter = nullptr;
    QCheckBox *m_showEmpty = nullptr;
};

} // namespace tracedesk::views
