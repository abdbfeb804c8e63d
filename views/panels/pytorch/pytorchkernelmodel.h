#pragma once

// PyTorchKernelModel: every GPU kernel of a PyTorch trace grouped by name and launching
// operator (core KernelView byNameOperator, the key of the CLI's report too), as a flat table:
// name, the launching operator, with a graph capture the operator that recorded the kernel at
// capture, family, Tensor / Matrix Cores used, calls, total / mean / max / min µs, mean blocks
// per SM and mean est. achieved occupancy (only when the trace records them). Display
// role: formatted text; kSortRole: the raw value; kKernelNameRole: the kernel name.

#include "core/analysis/pytorch/kernelview.h"

#include <QAbstractTableModel>

#include <memory>

namespace tracedesk::views {

class PyTorchKernelModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column {
        Name, Family, TensorCoresUsed, Calls, TotalUs, MeanUs, MaxUs, MinUs, MeanBlocksPerSm,
        MeanOccupancy, Operator, CapturedBy
    };
    static constexpr int kSortRole = Qt::UserRole;
    static constexpr int kKernelNameRole = Qt::UserRole + 1;

    explicit PyTorchKernelModel(QObject *parent = nullptr);

    void setView(std::shared_ptr<const core::analysis::pytorch::KernelView> view);
    int columnOf(Column column) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    std::shared_ptr<const core::analysis::pytorch::KernelView> m_view;
    std::vector<Column> m_columns;
};

} // namespace tracedesk::views
