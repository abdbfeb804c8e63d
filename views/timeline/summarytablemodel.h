#pragma once

// SummaryTableModel: a thin table over core's per-name selection summary (occurrences, wall
// total, self total, average, min, max). Display text uses adaptive time units; SortRole holds
// the raw number so a QSortFilterProxyModel sorts numerically.

#include "core/model/trace.h"
#include "core/query/selectionsummary.h"

#include <QAbstractTableModel>

#include <vector>

namespace tracedesk::views {

class SummaryTableModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column { Name, Occurrences, WallTotal, SelfTotal, Average, Min, Max, ColumnCount };
    static constexpr int SortRole = Qt::UserRole + 1;

    explicit SummaryTableModel(QObject *parent = nullptr);

    void setSummary(core::TracePtr trace, std::vector<core::NameSummary> rows);
    const std::vector<core::NameSummary> &rows() const { return m_rows; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    core::TracePtr m_trace;
    std::vector<core::NameSummary> m_rows;
};

// The rows of `model` (any proxy of a SummaryTableModel) in their shown order as CSV, with raw
// picosecond values and a header line.
QString summaryCsv(const QAbstractItemModel &model);

} // namespace tracedesk::views
