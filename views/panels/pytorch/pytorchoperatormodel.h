#pragma once

// PyTorchOperatorModel: the operator view of a PyTorch trace (core OperatorStats) for one
// grouping, as a flat table. Only the columns that mean something are present: input shapes
// and call stack when the grouping has them, device and tensor-core columns when the trace has
// GPU activities, so the CSV export writes what the table shows. Display role: formatted text
// (times in µs); kSortRole: the raw value; kOpNameRole: the operator name.

#include "core/analysis/pytorch/operatorstats.h"

#include <QAbstractTableModel>

#include <memory>

namespace tracedesk::views {

class PyTorchOperatorModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column {
        Name, InputShapes, CallStack, Calls, HostSelfUs, HostTotalUs, DeviceSelfUs, DeviceTotalUs,
        TensorCoreEligible, TensorCoreSelfPercent, TensorCoreTotalPercent
    };
    static constexpr int kSortRole = Qt::UserRole;
    static constexpr int kOpNameRole = Qt::UserRole + 1;

    explicit PyTorchOperatorModel(QObject *parent = nullptr);

    void setStats(std::shared_ptr<const core::analysis::pytorch::OperatorStats> stats,
                  core::analysis::pytorch::OperatorGrouping grouping);
    core::analysis::pytorch::OperatorGrouping grouping() const { return m_grouping; }
    const std::vector<core::analysis::pytorch::OperatorRow> &rows() const;
    // The model column showing `column`, or -1 when it is not shown.
    int columnOf(Column column) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    std::shared_ptr<const core::analysis::pytorch::OperatorStats> m_stats;
    core::analysis::pytorch::OperatorGrouping m_grouping =
        core::analysis::pytorch::OperatorGrouping::Name;
    std::vector<Column> m_columns;
};

} // namespace tracedesk::views
