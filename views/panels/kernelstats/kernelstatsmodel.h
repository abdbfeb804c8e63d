#pragma once

// KernelStatsModel: a flat table over core KernelReport values. Display role gives formatted
// text; kSortRole the raw value for sorting; kOpNameRole the op (or, without one, the kernel).

#include "core/analysis/opmetrics.h"

#include <QAbstractTableModel>

namespace tracedesk::views {

class KernelStatsModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column {
        Rank, Kernel, Op, Registers, SharedMemory, Block, Grid, TensorCoreEligible,
        UsingTensorCore, Occurrences, TotalUs, AvgUs, MinUs, MaxUs, ColumnCount
    };
    static constexpr int kSortRole = Qt::UserRole;
    static constexpr int kOpNameRole = Qt::UserRole + 1;

    explicit KernelStatsModel(QObject *parent = nullptr);

    void setReports(std::vector<core::analysis::KernelReport> reports);
    const std::vector<core::analysis::KernelReport> &reports() const { return m_reports; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    std::vector<core::analysis::KernelReport> m_reports;
};

} // namespace tracedesk::views
