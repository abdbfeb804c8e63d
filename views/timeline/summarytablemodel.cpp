#include "views/timeline/summarytablemodel.h"

#include "core/model/kindlabel.h"

#include "views/common/qtconvert.h"

#include <algorithm>
#include <numeric>

namespace tracedesk::views {

SummaryTableModel::SummaryTableModel(QObject *parent) : QAbstractTableModel(parent) {}

void SummaryTableModel::setSummary(core::TracePtr trace, std::vector<core::NameSummary> rows)
{
    beginResetModel();
    m_trace = std::move(trace);
    m_rows = std::move(rows);
    applyOrder(sortedOrder());
    endResetModel();
}

std::vector<uint32_t> SummaryTableModel::sortedOrder() const
{
    std::vector<uint32_t> order(m_rows.size());
    std::iota(order.begin(), order.end(), 0u);
    if (m_sortColumn < 0 || m_sortColumn >= ColumnCount)
        return order;
    const std::vector<core::NameSummary> &rows = m_rows;
    auto by = [&](auto key) {
        const bool ascending = m_sortOrder == Qt::AscendingOrder;
        std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
            return ascending ? key(rows[a]) < key(rows[b]) : key(rows[b]) < key(rows[a]);
        });
    };
    switch (Column(m_sortColumn)) {
    case Name:
        if (const core::Trace *trace = m_trace.get())
            by([trace](const core::NameSummary &s) { return core::sliceLabel(trace->string(s.name)); });
        break;
    case Occurrences: by([](const core::NameSummary &s) { return s.occurrences; }); break;
    case InArea: by([](const core::NameSummary &s) { return s.inWindowTotal; }); break;
    case WallTotal: by([](const core::NameSummary &s) { return s.wallTotal; }); break;
    case SelfTotal: by([](const core::NameSummary &s) { return s.selfTotal; }); break;
    case Average: by([](const core::NameSummary &s) { return s.averageDuration(); }); break;
    case Min: by([](const core::NameSummary &s) { return s.minDuration; }); break;
    case Max: by([](const core::NameSummary &s) { return s.maxDuration; }); break;
    case ColumnCount: break;
    }
    return order;
}

void SummaryTableModel::applyOrder(const std::vector<uint32_t> &order)
{
    std::vector<core::NameSummary> rows;
    rows.reserve(order.size());
    for (uint32_t i : order)
        rows.push_back(std::move(m_rows[i]));
    m_rows = std::move(rows);
}

void SummaryTableModel::sort(int column, Qt::SortOrder order)
{
    m_sortColumn = column;
    m_sortOrder = order;
    emit layoutAboutToBeChanged({}, QAbstractItemModel::VerticalSortHint);
    const std::vector<uint32_t> sorted = sortedOrder();
    // Persistent indexes (the table's selection and current row) follow their rows.
    std::vector<int> newRow(sorted.size());
    for (size_t i = 0; i < sorted.size(); ++i)
        newRow[sorted[i]] = int(i);
    const QModelIndexList from = persistentIndexList();
    QModelIndexList to;
    to.reserve(from.size());
    for (const QModelIndex &index : from)
        to << createIndex(newRow[size_t(index.row())], index.column());
    applyOrder(sorted);
    changePersistentIndexList(from, to);
    emit layoutChanged({}, QAbstractItemModel::VerticalSortHint);
}

int SummaryTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int SummaryTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant SummaryTableModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const core::NameSummary &s = m_rows[size_t(index.row())];
    if (role == Qt::TextAlignmentRole)
        return index.column() == Name ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                      : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole && index.column() == Name)   // the name the column elides
        return m_trace ? toQString(m_trace->string(s.name)) : QString();
    if (role != Qt::DisplayRole && role != SortRole)
        return {};
    const bool display = role == Qt::DisplayRole;
    auto time = [display](double ps) -> QVariant {
        return display ? QVariant(durationText(core::TimePs(std::llround(ps)))) : QVariant(ps);
    };
    switch (index.column()) {
    case Name: return m_trace ? toQString(core::sliceLabel(m_trace->string(s.name))) : QString();
    case Occurrences:
        return display ? QVariant(countText(s.occurrences)) : QVariant(qulonglong(s.occurrences));
    case InArea: return time(double(s.inWindowTotal));
    case WallTotal: return time(double(s.wallTotal));
    case SelfTotal: return time(double(s.selfTotal));
    case Average: return time(s.averageDuration());
    case Min: return time(double(s.minDuration));
    case Max: return time(double(s.maxDuration));
    default: return {};
    }
}

QVariant SummaryTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation == Qt::Horizontal && role == Qt::ToolTipRole) {
        if (section == InArea)
            return tr("Time of these slices inside the selected window: a slice that only "
                      "overlaps the area counts for its part inside it");
        if (section == WallTotal)
            return tr("Whole durations of the slices that overlap the area, also outside it");
    }
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Name: return tr("Name");
    case Occurrences: return tr("Occurrences");
    case InArea: return tr("In area");
    case WallTotal: return tr("Wall total");
    case SelfTotal: return tr("Self total");
    case Average: return tr("Average");
    case Min: return tr("Min");
    case Max: return tr("Max");
    default: return {};
    }
}

QString summaryCsv(const QAbstractItemModel &model)
{
    QString out = QStringLiteral(
        "name,occurrences,in_area_ps,wall_ps,self_ps,average_ps,min_ps,max_ps\n");
    for (int r = 0; r < model.rowCount(); ++r) {
        QString name = model.index(r, SummaryTableModel::Name).data().toString();
        name.replace(QLatin1Char('"'), QStringLiteral("\"\""));
        out += QLatin1Char('"') + name + QLatin1Char('"');
        for (int c = SummaryTableModel::Occurrences; c < SummaryTableModel::ColumnCount; ++c) {
            const QVariant v = model.index(r, c).data(SummaryTableModel::SortRole);
            out += QLatin1Char(',')
                   + (c == SummaryTableModel::Occurrences ? QString::number(v.toULongLong())
                                                          : QString::number(v.toDouble(), 'f', 0));
        }
        out += QLatin1Char('\n');
    }
    return out;
}

} // namespace tracedesk::views
