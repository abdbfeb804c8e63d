#include "views/panels/memoryprofile/memorybreakdownmodel.h"
#include "views/common/niceaxis.h"

#include <QColor>
#include <QFont>

namespace tracedesk::views {

MemoryBreakdownModel::MemoryBreakdownModel(QObject *parent) : QAbstractTableModel(parent) {}

void MemoryBreakdownModel::setRows(std::vector<core::analysis::MemoryBreakdownRow> rows)
{
    beginResetModel();
    m_rows = std::move(rows);
    endResetModel();
}

int MemoryBreakdownModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int MemoryBreakdownModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant MemoryBreakdownModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= int(m_rows.size()) || index.column() >= ColumnCount)
        return {};
    const auto &r = m_rows[size_t(index.row())];
    const auto text = [](const std::string &s) { return QString::fromStdString(s); };
    if (role == kOpNameRole)
        return r.special ? QString() : text(r.opName);
    if (role == Qt::FontRole && r.special) {
        QFont f;
        f.setItalic(true);
        return f;
    }
    if (role == Qt::TextAlignmentRole) {
        const bool number = index.column() == AllocationGiB || index.column() == RequestedGiB
                            || index.column() == Occurrences;
        return QVariant::fromValue(int(Qt::AlignVCenter | (number ? Qt::AlignRight : Qt::AlignLeft)));
    }
    // The allocator left these out (an empty op name, TensorFlow's DT_INVALID data type): said
    // so in words, not as a blank or as "INVALID", which reads like a fault in the profile.
    const bool noOp = !r.special && r.opName.empty();
    const bool noType = r.dataType.empty() || r.dataType == "INVALID";
    if (role == Qt::ForegroundRole
        && ((index.column() == OpName && noOp) || (index.column() == DataType && noType)))
        return QColor(Qt::gray);
    if (role == Qt::ToolTipRole && index.column() == OpName)
        return noOp ? tr("The allocator recorded no op for this allocation.") : text(r.opName);
    if (role == Qt::ToolTipRole && index.column() == DataType && noType)
        return tr("The allocator recorded no data type (%1).")
            .arg(r.dataType.empty() ? tr("empty") : text(r.dataType));
    if (role != Qt::DisplayRole && role != kSortRole)
        return {};
    const bool sort = role == kSortRole;
    switch (index.column()) {
    case OpName: return noOp && !sort ? tr("(not recorded)") : text(r.opName);
    case AllocationGiB:
        return sort ? QVariant(qlonglong(r.allocationBytes)) : bytesText(double(r.allocationBytes));
    case RequestedGiB:
        return sort ? QVariant(qlonglong(r.requestedBytes)) : bytesText(double(r.requestedBytes));
    case Occurrences: return qlonglong(r.occurrences);
    case RegionType: return text(r.regionType);
    case DataType: return noType && !sort ? tr("(not recorded)") : text(r.dataType);
    case Shape: return text(r.shape);
    default: return {};
    }
}

QVariant MemoryBreakdownModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case OpName: return tr("Op name");
    case AllocationGiB: return tr("Allocation size");
    case RequestedGiB: return tr("Requested size");
    case Occurrences: return tr("Occurrences");
    case RegionType: return tr("Region type");
    case DataType: return tr("Data type");
    case Shape: return tr("Shape");
    default: return {};
    }
}

} // namespace tracedesk::views
