#pragma once

// The Distributed panel's tables, filled from a DistributedSummary: per rank and step, the
// collectives by the spread of their arrival, the ranks by the waiting they caused, and the
// collective kernels per name. Numbers go in as numbers (Qt::DisplayRole doubles, milliseconds
// rounded to the microsecond) so the tables sort numerically; every row's first cell keeps its
// index into the summary under kSummaryIndexRole. GUI thread only.

#include "core/analysis/distributed/distributedsummary.h"

#include <Qt>

class QStandardItemModel;

namespace tracedesk::views {

inline constexpr int kSummaryIndexRole = Qt::UserRole + 1;   // rank / collective index
inline constexpr int kStepIndexRole = Qt::UserRole + 2;      // index into RankSummary::steps

// Columns of the rank/step table.
enum RankStepColumn {
    RankColumn, StepColumn, StepTimeColumn, ComputationColumn, CommunicationColumn,
    OverlapColumn, ExposedColumn, IdleColumn, RankStepColumnCount
};
// Columns of the stragglers table.
enum StragglerColumn {
    CollectiveIndexColumn, CollectiveNameColumn, StartSpreadColumn, EndSpreadColumn,
    LastRankColumn, WaitingColumn, StragglerColumnCount
};

// One row per (rank, step), rank order then step order; `step` empty = every step.
void fillRankSteps(QStandardItemModel *model,
                   const core::analysis::distributed::DistributedSummary &summary,
                   const std::string &step);
void fillStragglers(QStandardItemModel *model,
                    const core::analysis::distributed::DistributedSummary &summary);
void fillWaitingRanks(QStandardItemModel *model,
                      const core::analysis::distributed::DistributedSummary &summary);
void fillCollectiveStats(QStandardItemModel *model,
                         const core::analysis::distributed::DistributedSummary &summary);

} // namespace tracedesk::views
