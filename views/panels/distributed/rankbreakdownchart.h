#pragma once

// RankBreakdownChart: one stacked column per rank of a distributed run — computation (not
// overlapped), exposed communication, overlap, idle — for one step or summed over all steps.
// The four colours are fixed so a category looks the same in every run; background, axes and
// legend follow the palette (chartpalette.h). Clicking a column emits rankClicked(rank index).
// GUI thread only.

#include "core/analysis/distributed/distributedsummary.h"

#include <QChartView>

#include <array>
#include <vector>

namespace tracedesk::views {

// The four stacked values of one rank, microseconds.
struct RankBreakdown
{
    double computationUs = 0;           // computation - overlap
    double exposedCommunicationUs = 0;  // communication - overlap
    double overlapUs = 0;
    double idleUs = 0;
};

// Rank `rank`'s breakdown of the step named `step`, or the sum over its steps when `step` is
// empty. A rank without that step gives zeros.
RankBreakdown rankBreakdown(const core::analysis::distributed::RankSummary &rank,
                            const std::string &step);

class RankBreakdownChart : public QChartView
{
    Q_OBJECT

public:
    static constexpr int kSeriesCount = 4;
    static const std::array<const char *, kSeriesCount> kSeriesNames;

    explicit RankBreakdownChart(QWidget *parent = nullptr);

    // Draws `summary`'s ranks for `step` (empty: all steps). nullptr clears.
    void show(const core::analysis::distributed::DistributedSummary *summary,
              const std::string &step);
    int columnCount() const { return int(m_columns.size()); }
    const RankBreakdown &column(int i) const { return m_columns[size_t(i)]; }

signals:
    void rankClicked(int rankIndex);

private:
    std::vector<RankBreakdown> m_columns;
};

} // namespace tracedesk::views
