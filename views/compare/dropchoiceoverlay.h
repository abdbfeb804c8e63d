#pragma once

// DropChoiceOverlay: shown over the main window while a trace is dragged onto it and a trace is
// already open. Two big zones, "Open" (replace the current trace) on the left and "Compare with
// current" on the right; the zone under the cursor is highlighted and the drop position decides.
//
// Wiring: create it as a child of the window (it covers and follows its parent); in dragEnter
// call showFor(pos), in dragMove updateHover(pos), in drop read choiceAt(pos) then hide(); hide()
// on dragLeave. It is transparent for input, so drag events keep going to the window.

#include <QWidget>

namespace tracedesk::views {

class DropChoiceOverlay : public QWidget
{
    Q_OBJECT

public:
    enum class Choice { None, Open, Compare };
    Q_ENUM(Choice)

    explicit DropChoiceOverlay(QWidget *parent);

    // The current trace's name, shown under "Compare with current".
    void setCurrentName(const QString &name);
    // pos in the parent's coordinates (the overlay covers the parent exactly).
    Choice choiceAt(QPoint pos) const;
    Choice highlighted() const { return m_highlighted; }
    void updateHover(QPoint pos);
    // Covers the parent, raises itself, shows and highlights the zone at pos.
    void showFor(QPoint pos);
    QRect zoneRect(Choice choice) const;

signals:
    void highlightChanged(tracedesk::views::DropChoiceOverlay::Choice choice);

protected:
    void paintEvent(QPaintEvent *event) override;
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    QString m_currentName;
    Choice m_highlighted = Choice::None;
};

} // namespace tracedesk::views
