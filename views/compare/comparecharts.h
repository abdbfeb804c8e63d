#pragma once

// The two charts of the compare workspace (Qt Charts behind this one seam):
// StepCompareChart stacks each step's breakdown categories, A and B bars side by side (the
// averages first, then the first step pairs); DurationHistogram overlays the per-occurrence
// durations of one op in A and in B on shared bins, optionally on log axes.

#include "core/compare/stepcompare.h"

#include <QChartView>

#include <vector>

namespace tracedesk::views {

class StepCompareChart : public QChartView
{
    Q_OBJECT

public:
    static constexpr int kMaxPairs = 12;

    explicit StepCompareChart(QWidget *parent = nullptr);
    void setComparison(const core::compare::StepComparison &steps, const QString &nameA,
                       const QString &nameB);
    void clear();
    // X-axis labels and the stacked series (non-empty categories) currently shown.
    QStringList barLabels() const { return m_labels; }
    QStringList seriesNames() const { return m_series; }

private:
    QStringList m_labels;
    QStringList m_series;
};

class DurationHistogram : public QChartView
{
    Q_OBJECT

public:
    static constexpr int kBins = 30;

    explicit DurationHistogram(QWidget *parent = nullptr);
    void setDurations(const QString &op, std::vector<core::TimePs> a, std::vector<core::TimePs> b,
                      const QString &nameA, const QString &nameB);
    void setLogAxes(bool log);
    bool logAxes() const { return m_log; }
    void clear();
    // Counts per bin of the last build (A, B); both have kBins entries when data is shown.
    const std::vector<int> &countsA() const { return m_countsA; }
    const std::vector<int> &countsB() const { return m_countsB; }

private:
    void rebuild();

    QString m_op;
    QString m_nameA;
    QString m_nameB;
    std::vector<core::TimePs> m_a;
    std::vector<core::TimePs> m_b;
    std::vector<int> m_countsA;
    std::vector<int> m_countsB;
    bool m_log = false;
};

} // namespace tracedesk::views
