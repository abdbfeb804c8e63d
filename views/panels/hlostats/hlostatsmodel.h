#pragma once

// HloStatsModel: a flat table over core HloStatsRow values (one per HLO op, or per source line
// when grouped). Display role gives formatted text, with numbers the profile cannot give left
// empty; kSortRole the raw value (unknown numbers sort below every known one); kOpNameRole the
// HLO op name of an op row, empty for a source-line row.
//
// HloStatsFilter: the table's proxy; a row passes when its text matches the filter string and
// its category and bound-by match the chosen ones (empty: any).

#include "core/analysis/hlostats.h"

#include <QAbstractTableModel>
#include <QSortFilterProxyModel>

namespace tracedesk::views {

class HloStatsModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column {
        Rank, Program, Category, Op, Expression, FrameworkOp, Occurrences, TotalUs, AvgUs,
        SelfUs, AvgSelfUs, SelfPercent, CumulativePercent, GflopsPerSecond, HbmGibPerSecond,
        Intensity, BoundBy, Rematerialization, OutsideCompilation, Autotuned, Source, ColumnCount
    };
    static constexpr int kSortRole = Qt::UserRole;
    static constexpr int kOpNameRole = Qt::UserRole + 1;

    explicit HloStatsModel(QObject *parent = nullptr);

    // `bySource`: the rows are source lines (the op column says so, no row names an op).
    void setRows(std::vector<core::analysis::HloStatsRow> rows, bool bySource);
    const std::vector<core::analysis::HloStatsRow> &rows() const { return m_rows; }
    bool bySource() const { return m_bySource; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    std::vector<core::analysis::HloStatsRow> m_rows;
    bool m_bySource = false;
};

class HloStatsFilter : public QSortFilterProxyModel
{
    Q_OBJECT

public:
    explicit HloStatsFilter(HloStatsModel *source, QObject *parent = nullptr);

    void setCategory(const QString &category);
    void setBoundBy(const QString &boundBy);

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;

private:
    HloStatsModel *m_source;
    QString m_category;
    QString m_boundBy;
};

} // namespace tracedesk::views
