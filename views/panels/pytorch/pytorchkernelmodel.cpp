#include "views/panels/pytorch/pytorchkernelmodel.h"

namespace tracedesk::views {

using namespace core::analysis::pytorch;

PyTorchKernelModel::PyTorchKernelModel(QObject *parent) : QAbstractTableModel(parent) {}

void PyTorchKernelModel::setView(std::shared_ptr<const KernelView> view)
{
    beginResetModel();
    m_view = std::move(view);
    m_columns.clear();
    if (m_view) {
        // Who launched a kernel reads next to its name, before the numbers push it off screen.
        m_columns = {Name, Operator};
        if (m_view->hasGraphCapture)
            m_columns.push_back(CapturedBy);
        for (Column c : {Family, TensorCoresUsed, Calls, TotalUs, MeanUs, MaxUs, MinUs})
            m_columns.push_back(c);
        if (m_view->hasBlocksPerSm)
            m_columns.push_back(MeanBlocksPerSm);
        if (m_view->hasOccupancy)
            m_columns.push_back(MeanOccupancy);
    }
    endResetModel();
}

int PyTorchKernelModel::columnOf(Column column) const
{
    for (size_t i = 0; i < m_columns.size(); ++i) {
        if (m_columns[i] == column)
            return int(i);
    }
    return -1;
}

int PyTorchKernelModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() || !m_view ? 0 : int(m_view->byNameOperator.size());
}

int PyTorchKernelModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_columns.size());
}

QVariant PyTorchKernelModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= columnCount())
        return {};
    const KernelNameRow &r = m_view->byNameOperator[size_t(index.row())];
    if (role == kKernelNameRole)
        return QString::fromStdString(r.name);
    const auto text = [&](const std::string &s) -> QVariant {
        if (role == Qt::DisplayRole || role == Qt::ToolTipRole || role == kSortRole)
            return QString::fromStdString(s);
        return {};
    };
    const auto number = [&](double v, int decimals) -> QVariant {
        if (role == kSortRole)
            return v;
        if (role == Qt::DisplayRole)
            return QString::number(v, 'f', decimals);
        if (role == Qt::TextAlignmentRole)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    };
    switch (m_columns[size_t(index.column())]) {
    case Name: return text(r.name);
    case Family: return text(core::analysis::kernelFamilyName(r.family));
    case TensorCoresUsed:
        if (role == kSortRole)
            return r.tensorCoresUsed;
        if (role == Qt::DisplayRole)
            return r.tensorCoresUsed ? tr("Yes") : tr("No");
        return {};
    case Calls: return number(double(r.times.calls), 0);
    case TotalUs: return number(r.times.totalUs, 3);
    case MeanUs: return number(r.times.meanUs, 3);
    case MaxUs: return number(r.times.maxUs, 3);
    case MinUs: return number(r.times.minUs, 3);
    case MeanBlocksPerSm: return number(r.times.meanBlocksPerSm, 2);
    case MeanOccupancy: return number(r.times.meanOccupancyPercent, 2);
    case Operator: return text(r.operatorName);
    case CapturedBy: return text(r.captureOperator);
    }
    return {};
}

QVariant PyTorchKernelModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= columnCount())
        return QAbstractTableModel::headerData(section, orientation, role);
    const Column column = m_columns[size_t(section)];
    if (role == Qt::ToolTipRole) {
        switch (column) {
        case MeanBlocksPerSm:
        case MeanOccupancy:
            return tr("Weighted by kernel duration; a kernel without the value counts as 0");
        case Operator:
            return tr("The operator that launched these calls: by External id, else the "
                      "innermost operator, annotation or Python frame around the launch");
        case Family:
            return tr("GEMM, attention, convolution, communication, memory, elementwise, "
                      "reduction / norm or other, from the kernel name");
        case TensorCoresUsed:
            return tr("Tensor Cores (NVIDIA) or Matrix Cores (AMD), read from the kernel name");
        case CapturedBy:
            return tr("The operator that recorded this kernel into the CUDA / HIP graph, from "
                      "the capture trace opened with the replay");
        default: return {};
        }
    }
    if (role != Qt::DisplayRole)
        return {};
    switch (column) {
    case Name: return tr("Kernel");
    case Family: return tr("Family");
    case TensorCoresUsed: return tr("Tensor Cores used");
    case Calls: return tr("Calls");
    case TotalUs: return tr("Total (µs)");
    case MeanUs: return tr("Mean (µs)");
    case MaxUs: return tr("Max (µs)");
    case MinUs: return tr("Min (µs)");
    case MeanBlocksPerSm: return tr("Mean blocks per SM");
    case MeanOccupancy: return tr("Mean est. achieved occupancy (%)");
    case Operator: return tr("Operator");
    case CapturedBy: return tr("Captured by");
    }
    return {};
}

} // namespace tracedesk::views
