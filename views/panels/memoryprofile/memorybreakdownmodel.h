#pragma once

// MemoryBreakdownModel: the allocations live at the memory profile's peak (FORMATS.md 2.12),
// one row per merged allocation plus the special rows. Display sizes are GiB; kSortRole gives
// raw numbers so the proxy sorts numerically.

#include "core/analysis/memoryprofile.h"

#include <QAbstractTableModel>

#include <vector>

namespace tracedesk::views {

class MemoryBreakdownModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column { OpName, AllocationGiB, RequestedGiB, Occurrences, RegionType, DataType, Shape,
                  ColumnCount };
    static constexpr int kSortRole = Qt::UserRole + 1;
    static constexpr int kOpNameRole = Qt::UserRole + 2;

    explicit MemoryBreakdownModel(QObject *parent = nullptr);

    void setRows(std::vector<core::analysis::MemoryBreakdownRow> rows);
    const std::vector<core::analysis::MemoryBreakdownRow> &rows() const { return m_rows; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    std::vector<core::analysis::MemoryBreakdownRow> m_rows;
};

} // namespace tracedesk::views
