#include "views/panels/pytorch/pytorchmemoryeventmodel.h"

namespace tracedesk::views {

using namespace core::analysis::pytorch;

PyTorchMemoryEventModel::PyTorchMemoryEventModel(QObject *parent) : QAbstractTableModel(parent) {}

void PyTorchMemoryEventModel::setDevice(std::shared_ptr<const PyTorchMemory> memory, int device,
                                        core::TimePs origin)
{
    beginResetModel();
    m_memory = std::move(memory);
    m_origin = origin;
    m_rows.clear();
    if (m_memory && device >= 0) {
        for (size_t i = 0; i < m_memory->events.size(); ++i) {
            if (m_memory->events[i].device == uint32_t(device))
                m_rows.push_back(uint32_t(i));
        }
    }
    endResetModel();
}

int PyTorchMemoryEventModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int PyTorchMemoryEventModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant PyTorchMemoryEventModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount)
        return {};
    const MemoryEventRow &e = m_memory->events[m_rows[size_t(index.row())]];
    if (role == kTimeRole) {
        const auto t = e.allocTime ? e.allocTime : e.releaseTime;
        return t ? QVariant(qlonglong(*t)) : QVariant();
    }
    if (index.column() == Operator) {
        if (role == Qt::DisplayRole || role == Qt::ToolTipRole || role == kSortRole)
            return QString::fromStdString(e.op);
        return {};
    }
    std::optional<double> value;
    int decimals = 3;
    switch (index.column()) {
    case SizeKb: value = double(e.size) / 1024.0; decimals = 2; break;
    case AllocationMs: if (e.allocTime) value = double(*e.allocTime - m_origin) / 1e9; break;
    case ReleaseMs: if (e.releaseTime) value = double(*e.releaseTime - m_origin) / 1e9; break;
    case DurationMs: if (const auto d = e.duration()) value = double(*d) / 1e9; break;
    default: break;
    }
    if (role == kSortRole)
        return value ? *value : -1.0;
    if (role == Qt::DisplayRole)
        return value ? QString::number(*value, 'f', decimals) : QString();
    if (role == Qt::TextAlignmentRole)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

QVariant PyTorchMemoryEventModel::headerData(int section, Qt::Orientation orientation,
                                             int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole || section < 0
        || section >= ColumnCount)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Operator: return tr("Operator");
    case SizeKb: return tr("Size (KB)");
    case AllocationMs: return tr("Allocation time (ms)");
    case ReleaseMs: return tr("Release time (ms)");
    case DurationMs: return tr("Duration (ms)");
    default: return {};
    }
}

} // namespace tracedesk::views
