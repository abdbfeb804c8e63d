#pragma once

// Window layout helpers of the main window: the first window's size from the screen it opens
// on, and the pointer giving the timeline the keyboard back. Wiring only.

#include <QObject>
#include <QRect>

class QScreen;
class QWidget;

namespace tracedesk::app {

// Share of the screen's available geometry a first window takes (no saved geometry yet).
inline constexpr double kFirstWindowShare = 0.88;
// Share of the window's height the analysis docks get on first start.
inline constexpr double kFirstAnalysisShare = 0.5;

// `share` of `available`, centred in it.
QRect fittedGeometry(const QRect &available, double share = kFirstWindowShare);
// The screen a new window opens on: the one under the pointer, else the primary one.
QScreen *openingScreen();

// Gives `target` the keyboard when the pointer enters it, unless text is being typed
// elsewhere (a line edit, a spin box, an editable combo box): after a click on a panel tab the
// timeline's keys work again as soon as the pointer is back over it.
class PointerFocus : public QObject
{
    Q_OBJECT

public:
    explicit PointerFocus(QWidget *target);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    QWidget *m_target;
};

// The timeline's navigation keys (W A S D, with Shift) work whatever small widget of the
// window holds the keyboard (a track tree, a table, a tab, a button), as in Perfetto: they are
// passed to `target` unless that widget takes text (a field, an editable combo box).
class TimelineKeys : public QObject
{
    Q_OBJECT

public:
    explicit TimelineKeys(QWidget *target);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    QWidget *m_target;
};

} // namespace tracedesk::app
