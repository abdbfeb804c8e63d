#include "views/compare/opdiffmodel.h"

#include "core/compare/tracecomparison.h"

#include <QBrush>
#include <QColor>

#include <cmath>

namespace tracedesk::views {

using core::compare::OpChange;
using core::compare::OpDiffRow;

namespace {

QString micros(double us)
{
    return QString::number(us, 'f', us != 0 && std::abs(us) < 10 ? 2 : 1);
}

} // namespace

QColor opChangeColor(OpChange change)
{
    switch (change) {
    case OpChange::Slower: return QColor(0xd0, 0x3b, 0x3b);
    case OpChange::Added: return QColor(0xc0, 0x6a, 0x10);
    case OpChange::Faster: return QColor(0x2e, 0x8b, 0x3e);
    case OpChange::Removed: return QColor(0x2a, 0x7a, 0xb0);
    case OpChange::Unchanged: break;
    }
    return QColor(0x80, 0x80, 0x80);
}

namespace {

QString csvField(QString text)
{
    if (text.contains(QLatin1Char(',')) || text.contains(QLatin1Char('"'))
        || text.contains(QLatin1Char('\n'))) {
        text.replace(QLatin1String("\""), QLatin1String("\"\""));
        return QLatin1Char('"') + text + QLatin1Char('"');
    }
    return text;
}

} // namespace

OpDiffModel::OpDiffModel(QObject *parent) : QAbstractTableModel(parent) {}

void OpDiffModel::setDiff(core::compare::OpDiff diff)
{
    beginResetModel();
    m_diff = std::move(diff);
    endResetModel();
}

const OpDiffRow *OpDiffModel::rowAt(int row) const
{
    return row >= 0 && row < int(m_diff.rows.size()) ? &m_diff.rows[size_t(row)] : nullptr;
}

int OpDiffModel::rowOf(const QString &name, const QString &where) const
{
    const std::string n = name.toStdString(), w = where.toStdString();
    for (size_t i = 0; i < m_diff.rows.size(); ++i) {
        if (m_diff.rows[i].name == n && (w.empty() || m_diff.rows[i].where == w))
            return int(i);
    }
    return -1;
}

int OpDiffModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_diff.rows.size());
}

int OpDiffModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant OpDiffModel::data(const QModelIndex &index, int role) const
{
    const OpDiffRow *r = index.isValid() ? rowAt(index.row()) : nullptr;
    if (!r || index.column() < 0 || index.column() >= ColumnCount)
        return {};
    const int c = index.column();
    if (role == Qt::DisplayRole || role == Qt::ToolTipRole) {
        switch (c) {
        case NameColumn: return QString::fromStdString(r->name);
        case WhereColumn: return QString::fromStdString(r->where);
        case CategoryColumn: return QString::fromStdString(r->category);
        case ChangeColumn: return QString::fromLatin1(core::compare::opChangeName(r->change));
        case DeltaColumn: return QString::fromStdString(core::compare::formatDeltaUs(r->deltaUs));
        case DeltaPercentColumn:
            return QString::fromStdString(core::compare::formatPercent(r->deltaPercent));
        case PerStepAColumn: return micros(r->perStepUsA);
        case PerStepBColumn: return micros(r->perStepUsB);
        case OccurrencesAColumn: return QString::number(r->occurrencesA);
        case OccurrencesBColumn: return QString::number(r->occurrencesB);
        case TotalAColumn: return micros(double(r->totalA) / 1e6);
        case TotalBColumn: return micros(double(r->totalB) / 1e6);
        }
    } else if (role == kSortRole) {
        switch (c) {
        case NameColumn: return QString::fromStdString(r->name);
        case WhereColumn: return QString::fromStdString(r->where);
        case CategoryColumn: return QString::fromStdString(r->category);
        case ChangeColumn: return int(r->change);
        case DeltaColumn: return r->deltaUs;
        case DeltaPercentColumn:
            // Ops new in B have no percentage; they sort above every finite change.
            return std::isfinite(r->deltaPercent) ? r->deltaPercent : 1e300;
        case PerStepAColumn: return r->perStepUsA;
        case PerStepBColumn: return r->perStepUsB;
        case OccurrencesAColumn: return qlonglong(r->occurrencesA);
        case OccurrencesBColumn: return qlonglong(r->occurrencesB);
        case TotalAColumn: return qlonglong(r->totalA);
        case TotalBColumn: return qlonglong(r->totalB);
        }
    } else if (role == kWhereRole) {
        return QString::fromStdString(r->where);
    } else if (role == Qt::ForegroundRole) {
        if (c == ChangeColumn || c == DeltaColumn || c == DeltaPercentColumn)
            return QBrush(opChangeColor(r->change));
    } else if (role == Qt::TextAlignmentRole) {
        if (c >= DeltaColumn)
            return int(Qt::AlignRight | Qt::AlignVCenter);
    }
    return {};
}

QVariant OpDiffModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return {};
    if (role == Qt::DisplayRole) {
        static const char *const kHeaders[] = {
            "Op", "Where", "Category", "Change", "Δ per step", "Δ %", "A per step (us)",
            "B per step (us)", "Occ. A", "Occ. B", "Total A (us)", "Total B (us)"};
        return QString::fromUtf8(kHeaders[section]);
    }
    if (role == Qt::ToolTipRole && section >= DeltaColumn && section <= PerStepBColumn)
        return tr("Self time per step (per trace when a trace has no steps)");
    return {};
}

OpDiffProxy::OpDiffProxy(QObject *parent) : QSortFilterProxyModel(parent)
{
    setSortRole(OpDiffModel::kSortRole);
    setFilterKeyColumn(OpDiffModel::NameColumn);
    setFilterCaseSensitivity(Qt::CaseInsensitive);
}

QString opDiffCsv(const QAbstractItemModel &model)
{
    QString out;
    const int columns = model.columnCount();
    for (int c = 0; c < columns; ++c)
        out += (c ? QStringLiteral(",") : QString())
               + csvField(model.headerData(c, Qt::Horizontal, Qt::DisplayRole).toString());
    out += QLatin1Char('\n');
    for (int r = 0; r < model.rowCount(); ++r) {
        for (int c = 0; c < columns; ++c)
            out += (c ? QStringLiteral(",") : QString())
                   + csvField(model.data(model.index(r, c), Qt::DisplayRole).toString());
        out += QLatin1Char('\n');
    }
    return out;
}

} // namespace tracedesk::views
