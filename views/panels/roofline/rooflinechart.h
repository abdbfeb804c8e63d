#pragma once

// RooflineChart: the Roofline Model on log-log axes. x: operational intensity (FLOP per byte),
// y: FLOP rate (GFLOP/s). One roofline per memory the profile reports (its bandwidth slope up to
// its ridge point, then the peak FLOP rate), the ridge points marked, and the points of the whole
// profile, each step and each op passed in. Hovering a point names it with its numbers; clicking
// an op's point emits opClicked. Points without an intensity or a rate cannot be placed and are
// left out (pointCount() says how many are drawn). GUI thread only.

#include "core/analysis/roofline.h"

#include <QChartView>

#include <memory>
#include <vector>

class QScatterSeries;

namespace tracedesk::views {

class RooflineChart : public QChartView
{
    Q_OBJECT

public:
    explicit RooflineChart(QWidget *parent = nullptr);

    // Draws `model`'s rooflines and its points at `rows` (a filtered subset); kept shared, not
    // copied. A null model draws an empty frame.
    void show(std::shared_ptr<const core::analysis::RooflineModel> model,
              const std::vector<uint32_t> &rows);
    void clear();

    int pointCount() const;
    int rooflineCount() const { return m_rooflines; }
    // What hovering the drawn point at `index` (order: Total, steps, ops) shows.
    QString pointText(int index) const;
    // The widget position of a drawn point, for tests that click it.
    QPoint pointPosition(int index) const;

signals:
    void opClicked(const QString &name);

private:
    int drawnIndex(const QScatterSeries *series, const QPointF &value) const;

    const core::analysis::RooflinePoint &drawn(size_t i) const
    {
        return m_model->points[m_drawn[i]];
    }

    std::shared_ptr<const core::analysis::RooflineModel> m_model;
    std::vector<uint32_t> m_drawn; // indices of the drawn points, in series order
    std::vector<QPointF> m_values;
    int m_rooflines = 0;
};

} // namespace tracedesk::views
