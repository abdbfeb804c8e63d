#include "views/query/queryresultmodel.h"

#include <cmath>

#include <QColor>

namespace tracedesk::views {

namespace {

QByteArray csvField(const std::string &s)
{
    QByteArray field = QByteArray::fromStdString(s);
    if (!field.contains(',') && !field.contains('"') && !field.contains('\n') &&
        !field.contains('\r'))
        return field;
    field.replace("\"", "\"\"");
    return '"' + field + '"';
}

} // namespace

void QueryResultModel::setResult(core::sql::QueryResult result)
{
    beginResetModel();
    m_result = std::move(result);
    m_sliceIdColumn = -1;
    for (size_t c = 0; c < m_result.columns.size(); ++c) {
        if (m_result.columns[c] == "slice_id")
            m_sliceIdColumn = int(c);
    }
    for (size_t c = 0; c < m_result.columns.size() && m_sliceIdColumn < 0; ++c) {
        if (m_result.columns[c] == "id")
            m_sliceIdColumn = int(c);
    }
    endResetModel();
}

int QueryResultModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_result.rows.size());
}

int QueryResultModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_result.columns.size());
}

// A REAL as a table shows it: three decimals at most, trailing zeros dropped ("1921.235",
// "0.5", "12"); very small or very large values in six significant digits. The tooltip and the
// CSV keep every digit.
QString realText(double v)
{
    const double a = std::abs(v);
    if (!std::isfinite(v) || (a != 0 && (a < 1e-3 || a >= 1e15)))
        return QString::number(v, 'g', 6);
    QString text = QString::number(v, 'f', 3);
    while (text.endsWith('0'))
        text.chop(1);
    if (text.endsWith('.'))
        text.chop(1);
    return text == QStringLiteral("-0") ? QStringLiteral("0") : text;
}

QVariant QueryResultModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || size_t(index.row()) >= m_result.rows.size())
        return {};
    const auto &row = m_result.rows[size_t(index.row())];
    if (size_t(index.column()) >= row.size())
        return {};
    const core::sql::SqlCell &cell = row[size_t(index.column())];
    switch (role) {
    case Qt::DisplayRole:
    case Qt::ToolTipRole:
        if (std::holds_alternative<std::monostate>(cell))
            return role == Qt::DisplayRole ? QStringLiteral("NULL") : QVariant();
        if (const auto *d = std::get_if<double>(&cell); d && role == Qt::DisplayRole)
            return realText(*d);
        return QString::fromStdString(core::sql::cellText(cell));   // the tooltip: every digit
    case Qt::UserRole:
        if (const auto *i = std::get_if<int64_t>(&cell))
            return QVariant::fromValue(qint64(*i));
        if (const auto *d = std::get_if<double>(&cell))
            return *d;
        if (const auto *s = std::get_if<std::string>(&cell))
            return QString::fromStdString(*s);
        return {};
    case Qt::TextAlignmentRole:
        if (std::holds_alternative<int64_t>(cell) || std::holds_alternative<double>(cell))
            return int(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case Qt::ForegroundRole:
        if (std::holds_alternative<std::monostate>(cell))
            return QColor(Qt::gray);
        return {};
    default:
        return {};
    }
}

QVariant QueryResultModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (role != Qt::DisplayRole)
        return {};
    if (orientation == Qt::Vertical)
        return section + 1;
    if (size_t(section) < m_result.columns.size())
        return QString::fromStdString(m_result.columns[size_t(section)]);
    return {};
}

std::optional<int64_t> QueryResultModel::integerAt(int row, int column) const
{
    if (row < 0 || size_t(row) >= m_result.rows.size() || column < 0 ||
        size_t(column) >= m_result.rows[size_t(row)].size())
        return std::nullopt;
    if (const auto *i = std::get_if<int64_t>(&m_result.rows[size_t(row)][size_t(column)]))
        return *i;
    return std::nullopt;
}

QByteArray QueryResultModel::toCsv() const
{
    QByteArray out;
    for (size_t c = 0; c < m_result.columns.size(); ++c)
        out += (c ? "," : "") + csvField(m_result.columns[c]);
    out += '\n';
    for (const auto &row : m_result.rows) {
        for (size_t c = 0; c < row.size(); ++c)
            out += (c ? "," : "") + csvField(core::sql::cellText(row[c]));
        out += '\n';
    }
    return out;
}

} // namespace tracedesk::views
