#include "views/panels/overview/analysistablemodel.h"

namespace tracedesk::views {

AnalysisTableModel::AnalysisTableModel(QStringList headers, QObject *parent)
    : QAbstractTableModel(parent), m_headers(std::move(headers)), m_decimals(m_headers.size(), -1)
{
}

void AnalysisTableModel::setDecimals(int column, int decimals)
{
    if (column >= 0 && size_t(column) < m_decimals.size())
        m_decimals[size_t(column)] = decimals;
}

void AnalysisTableModel::setRows(std::vector<std::vector<QVariant>> rows)
{
    beginResetModel();
    m_rows = std::move(rows);
    for (auto &r : m_rows)
        r.resize(size_t(m_headers.size()));
    endResetModel();
}

QVariant AnalysisTableModel::value(int row, int column) const
{
    if (row < 0 || size_t(row) >= m_rows.size() || column < 0 || column >= m_headers.size())
        return {};
    return m_rows[size_t(row)][size_t(column)];
}

int AnalysisTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int AnalysisTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_headers.size());
}

QVariant AnalysisTableModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= columnCount())
        return {};
    const QVariant &v = m_rows[size_t(index.row())][size_t(index.column())];
    if (role == kSortRole)
        return v;
    const bool number = v.typeId() == QMetaType::Double || v.typeId() == QMetaType::LongLong
                        || v.typeId() == QMetaType::Int;
    if (role == Qt::TextAlignmentRole)
        return number ? QVariant(int(Qt::AlignRight | Qt::AlignVCenter)) : QVariant();
    if (role == Qt::DisplayRole || role == Qt::ToolTipRole) {
        const int decimals = m_decimals[size_t(index.column())];
        if (v.typeId() == QMetaType::Double)
            return QString::number(v.toDouble(), 'f', decimals < 0 ? 0 : decimals);
        if (v.typeId() == QMetaType::Bool)
            return v.toBool() ? tr("yes") : tr("no");
        return v;
    }
    return {};
}

QVariant AnalysisTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (role != Qt::DisplayRole || orientation != Qt::Horizontal || section < 0
        || section >= m_headers.size())
        return QAbstractTableModel::headerData(section, orientation, role);
    return m_headers[section];
}

} // namespace tracedesk::views
