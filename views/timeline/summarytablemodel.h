#pragma once

// SummaryTableModel: a thin table over core's per-name selection summary (occurrences, time
// inside the area, wall total, self total, average, min, max). Display text uses adaptive time units; SortRole holds
// the raw number. The model sorts its own rows on the raw values (a proxy comparing QVariants
// took tens of milliseconds of the GUI thread for an area of 64K names), and a new summary
// arrives in the current order.

#include "core/model/trace.h"
#include "core/query/selectionsummary.h"

#include <QAbstractTableModel>

#include <vector>

namespace tracedesk::views {

class SummaryTableModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column { Name, Occurrences, InArea, WallTotal, SelfTotal, Average, Min, Max, ColumnCount };
    static constexpr int SortRole = Qt::UserRole + 1;

    explicit SummaryTableModel(QObject *parent = nullptr);

    void setSummary(core::TracePtr trace, std::vector<core::NameSummary> rows);
    const std::vector<core::NameSummary> &rows() const { return m_rows; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;
    void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;

private:
    // Positions of m_rows in the current sort order (stable: ties keep core's order).
    std::vector<uint32_t> sortedOrder() const;
    void applyOrder(const std::vector<uint32_t> &order);

    core::TracePtr m_trace;
    std::vector<core::NameSummary> m_rows;
    int m_sortColumn = -1;   // -1: the order core gave
    Qt::SortOrder m_sortOrder = Qt::AscendingOrder;
};

// The rows of `model` (any proxy of a SummaryTableModel) in their shown order as CSV, with raw
// picosecond values and a header line.
QString summaryCsv(const QAbstractItemModel &model);

} // namespace tracedesk::views
