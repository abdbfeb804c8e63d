#pragma once

// OperatorDiffModel: the matched operators of two PyTorch traces (core/compare/
// pytorchcomparison.h) at one grouping, one row per operator pair: how it matched, its names on
// both sides, calls and device self time of each side, the change, and the GPU work each side
// ran for it ("3 GPU ops, 1.21 ms · GEMM") so a cross-vendor row reads in one line. The tooltip
// of a GPU-work cell lists the kernels. Sorts on raw numbers (kSortRole) through OpDiffProxy's
// rules; GUI thread only.

#include "core/compare/pytorchcomparison.h"

#include <QAbstractTableModel>

#include <memory>

namespace tracedesk::views {

class OperatorDiffModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column {
        OperatorColumn,
        MatchColumn,
        ChangeColumn,
        DeltaColumn,
        DeviceAColumn,
        DeviceBColumn,
        CallsAColumn,
        CallsBColumn,
        GpuWorkAColumn,
        GpuWorkBColumn,
        CallPathColumn,
        ColumnCount
    };
    static constexpr int kSortRole = Qt::UserRole + 1;

    explicit OperatorDiffModel(QObject *parent = nullptr);

    void setComparison(std::shared_ptr<const core::compare::PyTorchComparison> comparison,
                       core::compare::OperatorGrouping grouping);
    void setGrouping(core::compare::OperatorGrouping grouping);
    core::compare::OperatorGrouping grouping() const { return m_grouping; }
    const core::compare::OperatorDiffRow *rowAt(int row) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    std::shared_ptr<const core::compare::PyTorchComparison> m_comparison;
    core::compare::OperatorGrouping m_grouping = core::compare::OperatorGrouping::Name;
};

// "Operators: 30 in A, 31 in B; 29 matched by name, 1 by call path (100% of A's device time)..."
QString operatorMatchText(const core::compare::OperatorMatchSummary &summary);

} // namespace tracedesk::views
