#include "views/common/chartpalette.h"

#include <QAbstractAxis>
#include <QChart>
#include <QChartView>
#include <QEvent>
#include <QLegend>
#include <QPalette>
#include <QPieSeries>
#include <QPieSlice>

namespace tracedesk::views {

namespace {

// Re-applies the palette when the view's palette or style changes.
class PaletteFollower : public QObject
{
public:
    explicit PaletteFollower(QChartView *view) : QObject(view), m_view(view) {}

    bool eventFilter(QObject *watched, QEvent *event) override
    {
        if (watched == m_view
            && (event->type() == QEvent::PaletteChange || event->type() == QEvent::StyleChange))
            applyChartPalette(m_view);
        return false;
    }

private:
    QChartView *m_view;
};

} // namespace

void applyChartPalette(QChart *chart, const QPalette &palette)
{
    if (!chart)
        return;
    const QColor base = palette.color(QPalette::Base);
    const QColor text = palette.color(QPalette::Text);
    QColor grid = palette.color(QPalette::Mid);
    QColor line = palette.color(QPalette::Mid);
    grid.setAlpha(110);
    chart->setBackgroundBrush(base);
    chart->setBackgroundPen(Qt::NoPen);
    chart->setPlotAreaBackgroundVisible(false);
    chart->setTitleBrush(text);
    chart->legend()->setLabelColor(text);
    chart->legend()->setBrush(Qt::NoBrush);
    for (QAbstractAxis *axis : chart->axes()) {
        axis->setLabelsColor(text);
        axis->setTitleBrush(text);
        axis->setLinePenColor(line);
        axis->setGridLineColor(grid);
        axis->setMinorGridLineColor(grid);
    }
    for (QAbstractSeries *series : chart->series()) {
        if (auto *pie = qobject_cast<QPieSeries *>(series)) {
            for (QPieSlice *slice : pie->slices())
                slice->setLabelColor(text);
        }
    }
}

void applyChartPalette(QChartView *view)
{
    applyChartPalette(view->chart(), view->palette());
    view->setBackgroundBrush(view->palette().color(QPalette::Base));
}

void followPalette(QChartView *view)
{
    if (!view->property("tracedeskFollowsPalette").toBool()) {
        view->setProperty("tracedeskFollowsPalette", true);
        view->installEventFilter(new PaletteFollower(view));
    }
    applyChartPalette(view);
}

} // namespace tracedesk::views
