#pragma once

// OpDiffModel: a thin table over one core::compare::OpDiff (one row per op, A and B side by
// side, the change coloured). OpDiffProxy sorts on raw numbers (kSortRole) and filters on the
// op name, case-insensitively. GUI thread only.

#include "core/compare/opdiff.h"

#include <QAbstractTableModel>
#include <QColor>
#include <QSortFilterProxyModel>

namespace tracedesk::views {

class OpDiffModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column {
        NameColumn,
        WhereColumn,
        CategoryColumn,
        ChangeColumn,
        DeltaColumn,
        DeltaPercentColumn,
        PerStepAColumn,
        PerStepBColumn,
        OccurrencesAColumn,
        OccurrencesBColumn,
        TotalAColumn,
        TotalBColumn,
        ColumnCount
    };
    static constexpr int kSortRole = Qt::UserRole + 1;
    static constexpr int kWhereRole = Qt::UserRole + 2;

    explicit OpDiffModel(QObject *parent = nullptr);

    void setDiff(core::compare::OpDiff diff);
    const core::compare::OpDiff &diff() const { return m_diff; }
    const core::compare::OpDiffRow *rowAt(int row) const;
    // The row of an op (where empty: the first with that name), or -1.
    int rowOf(const QString &name, const QString &where = {}) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    core::compare::OpDiff m_diff;
};

class OpDiffProxy : public QSortFilterProxyModel
{
    Q_OBJECT

public:
    explicit OpDiffProxy(QObject *parent = nullptr);
};

// The colour of a change: red slower, orange added, green faster, blue removed, grey unchanged.
QColor opChangeColor(core::compare::OpChange change);

// The table as the proxy shows it (header, then rows in view order), CSV-quoted.
QString opDiffCsv(const QAbstractItemModel &model);

} // namespace tracedesk::views
