#pragma once

// FrameworkOpStatsModel: a flat table over core FrameworkOpStatsRow values. Display role gives
// formatted text; Qt::UserRole the raw number (or text) for sorting; kOpNameRole the op name.

#include "core/analysis/frameworkopstats.h"

#include <QAbstractTableModel>

namespace tracedesk::views {

class FrameworkOpStatsModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column {
        Rank, Side, Type, Name, Occurrences, TotalTime, AvgTime, SelfTime, AvgSelfTime,
        SelfPercent, CumulativePercent, ColumnCount
    };
    static constexpr int kSortRole = Qt::UserRole;
    static constexpr int kOpNameRole = Qt::UserRole + 1;

    explicit FrameworkOpStatsModel(QObject *parent = nullptr);

    void setRows(std::vector<core::analysis::FrameworkOpStatsRow> rows);
    const std::vector<core::analysis::FrameworkOpStatsRow> &rows() const { return m_rows; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    std::vector<core::analysis::FrameworkOpStatsRow> m_rows;
};

} // namespace tracedesk::views
