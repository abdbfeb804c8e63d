#pragma once

// PivotTreeModel: a read-only tree over a core::PivotResult: one row per group, nested as the
// levels are, columns group / count / total / average / min / max / self. The display role
// shows formatted durations; kSortRole holds the raw number (the label for the group column).
// The model sorts each group's children itself on the raw values: a sorting proxy compared
// QVariants for every group a tree view asked about, 60 ms of the GUI thread on a large
// profile. A node's internal id is its index in the result, so views map an index back to the
// group's slices with nodeOf().

#include "core/model/trace.h"
#include "core/query/pivot.h"

#include <QAbstractItemModel>

#include <memory>
#include <span>

namespace tracedesk::views {

class PivotTreeModel : public QAbstractItemModel
{
    Q_OBJECT

public:
    enum Column { Group, Count, Total, Average, Min, Max, Self, ColumnCount };
    static constexpr int kSortRole = Qt::UserRole + 1;

    explicit PivotTreeModel(QObject *parent = nullptr);

    void setResult(core::TracePtr trace, std::shared_ptr<const core::PivotResult> result);
    const std::shared_ptr<const core::PivotResult> &result() const { return m_result; }
    const core::TracePtr &trace() const { return m_trace; }
    // The node of the result an index of this model shows (0, the root, for an invalid index).
    uint32_t nodeOf(const QModelIndex &index) const;
    QString labelOf(uint32_t node) const;

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;
    void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;

private:
    // Orders every node's children by the current sort column (stable: ties keep the result's
    // order) and numbers their rows.
    void orderChildren();
    // The node's children in shown order.
    std::span<uint32_t> childrenOf(uint32_t node);
    std::span<const uint32_t> childrenOf(uint32_t node) const;

    core::TracePtr m_trace;
    std::shared_ptr<const core::PivotResult> m_result;
    // Every node's children in shown order: the result's childList, each node's run reordered
    // by the sort column (runs sit where the result's nodes say).
    std::vector<uint32_t> m_childList;
    std::vector<int> m_rowInParent;     // per node: its row under its parent
    int m_sortColumn = -1;                         // -1: the result's order
    Qt::SortOrder m_sortOrder = Qt::AscendingOrder;
};

} // namespace tracedesk::views
