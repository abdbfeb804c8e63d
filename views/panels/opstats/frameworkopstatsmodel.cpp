#include "views/panels/opstats/frameworkopstatsmodel.h"

namespace tracedesk::views {

FrameworkOpStatsModel::FrameworkOpStatsModel(QObject *parent) : QAbstractTableModel(parent) {}

void FrameworkOpStatsModel::setRows(std::vector<core::analysis::FrameworkOpStatsRow> rows)
{
    beginResetModel();
    m_rows = std::move(rows);
    endResetModel();
}

int FrameworkOpStatsModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int FrameworkOpStatsModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant FrameworkOpStatsModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= int(m_rows.size()))
        return {};
    const auto &r = m_rows[size_t(index.row())];
    if (role == kOpNameRole)
        return QString::fromStdString(r.name);
    if (role == Qt::TextAlignmentRole)
        return index.column() >= Occurrences ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                                             : QVariant();
    if (role == Qt::ToolTipRole && index.column() == Name)
        return QString::fromStdString(r.name);
    const bool sort = role == kSortRole;
    if (role != Qt::DisplayRole && !sort)
        return {};
    auto us = [&](double v) -> QVariant { return sort ? QVariant(v) : QString::number(v, 'f', 3); };
    auto pct = [&](double f) -> QVariant {
        return sort ? QVariant(f) : QString::number(f * 100.0, 'f', 2) + QLatin1Char('%');
    };
    switch (Column(index.column())) {
    // Sorting by rank keeps the table's order: device rows, then host rows.
    case Rank: return sort ? QVariant(index.row()) : QVariant(r.rank);
    case Side: return r.onDevice ? tr("Device") : tr("Host");
    case Type: return QString::fromStdString(r.type);
    case Name: return QString::fromStdString(r.name);
    case Occurrences: return qlonglong(r.occurrences);
    case TotalTime: return us(r.totalTimeUs);
    case AvgTime: return us(r.avgTimeUs);
    case SelfTime: return us(r.totalSelfTimeUs);
    case AvgSelfTime: return us(r.avgSelfTimeUs);
    case SelfPercent: return pct(r.selfTimeFraction);
    case CumulativePercent: return pct(r.cumulativeSelfTimeFraction);
    case ColumnCount: break;
    }
    return {};
}

QVariant FrameworkOpStatsModel::headerData(int section, Qt::Orientation orientation,
                                           int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    static const char *const kHeaders[] = {
        "Rank", "Host/device", "Type", "Operation", "Occurrences", "Total (us)", "Avg (us)",
        "Self (us)", "Avg self (us)", "Self %", "Cum. self %"};
    return section >= 0 && section < ColumnCount ? tr(kHeaders[section]) : QVariant();
}

} // namespace tracedesk::views
