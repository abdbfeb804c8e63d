#include "views/panels/kernelstats/kernelstatsmodel.h"

namespace tracedesk::views {

KernelStatsModel::KernelStatsModel(QObject *parent) : QAbstractTableModel(parent) {}

void KernelStatsModel::setReports(std::vector<core::analysis::KernelReport> reports)
{
    beginResetModel();
    m_reports = std::move(reports);
    endResetModel();
}

int KernelStatsModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_reports.size());
}

int KernelStatsModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant KernelStatsModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= int(m_reports.size()))
        return {};
    const auto &r = m_reports[size_t(index.row())];
    if (role == kOpNameRole)
        return QString::fromStdString(r.opName.empty() ? r.name : r.opName);
    if (role == Qt::ToolTipRole && (index.column() == Kernel || index.column() == Op))
        return QString::fromStdString(index.column() == Kernel ? r.name : r.opName);
    if (role == Qt::TextAlignmentRole)
        return index.column() >= Registers ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                                           : QVariant();
    const bool sort = role == kSortRole;
    if (role != Qt::DisplayRole && !sort)
        return {};
    auto us = [&](core::TimePs ps) -> QVariant {
        const double v = double(ps) / 1e6;
        return sort ? QVariant(v) : QString::number(v, 'f', 3);
    };
    auto dims = [&](const uint32_t *d) -> QVariant {
        if (sort)
            return qulonglong(d[0]) * d[1] * d[2];
        return QStringLiteral("%1,%2,%3").arg(d[0]).arg(d[1]).arg(d[2]);
    };
    auto yesNo = [&](bool b) -> QVariant {
        return sort ? QVariant(b ? 1 : 0) : (b ? tr("Yes") : tr("No"));
    };
    switch (Column(index.column())) {
    case Rank: return index.row() + 1;
    case Kernel: return QString::fromStdString(r.name);
    case Op: return QString::fromStdString(r.opName);
    case Registers: return r.registersPerThread;
    case SharedMemory: return r.staticShmemBytes + r.dynamicShmemBytes;
    case Block: return dims(r.blockDim);
    case Grid: return dims(r.gridDim);
    case TensorCoreEligible: return yesNo(r.isOpTensorCoreEligible);
    case UsingTensorCore: return yesNo(r.isKernelUsingTensorCore);
    case Occurrences: return qlonglong(r.occurrences);
    case TotalUs: return us(r.totalDurationPs);
    case AvgUs: return us(r.occurrences ? r.totalDurationPs / r.occurrences : 0);
    case MinUs: return us(r.minDurationPs);
    case MaxUs: return us(r.maxDurationPs);
    case ColumnCount: break;
    }
    return {};
}

QVariant KernelStatsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    static const char *const kHeaders[] = {
        "Rank", "Kernel", "Op", "Regs", "Shared mem (B)", "Block", "Grid", "TC eligible",
        "Uses TC", "Occurrences", "Total (us)", "Avg (us)", "Min (us)", "Max (us)"};
    return section >= 0 && section < ColumnCount ? tr(kHeaders[section]) : QVariant();
}

} // namespace tracedesk::views
