#pragma once

// QueryResultModel: a read-only table over one core::sql::QueryResult. DisplayRole is the
// cell's text, Qt::UserRole its typed value (qint64, double or QString; invalid for NULL) so a
// QSortFilterProxyModel sorts numbers as numbers. GUI thread only.

#include "core/sql/sqlresult.h"

#include <QAbstractTableModel>

#include <optional>

namespace tracedesk::views {

class QueryResultModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    using QAbstractTableModel::QAbstractTableModel;

    void setResult(core::sql::QueryResult result);
    const core::sql::QueryResult &result() const { return m_result; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    // The column holding slice ids: `slice_id` if present, else `id`; -1 when neither.
    int sliceIdColumn() const { return m_sliceIdColumn; }
    // The integer in `column` of source row `row`, if it is one.
    std::optional<int64_t> integerAt(int row, int column) const;

    // The whole result as CSV (header row first, RFC 4180 quoting).
    QByteArray toCsv() const;

private:
    core::sql::QueryResult m_result;
    int m_sliceIdColumn = -1;
};

// A REAL cell's display text (three decimals at most); the model's tooltip has every digit.
QString realText(double value);

} // namespace tracedesk::views
