#pragma once

// TfDataGraphModel: the iterator graph of one tf.data pipeline execution as a tree (parent =
// the iterator's parent_id when that iterator is in the same execution). Columns: iterator,
// start, total, self, calls. Iterators on the critical path are bold, the bottleneck red.

#include "core/analysis/tfdata.h"

#include <QAbstractItemModel>

#include <vector>

namespace tracedesk::views {

class TfDataGraphModel : public QAbstractItemModel
{
    Q_OBJECT

public:
    enum Column { Iterator, StartUs, TotalUs, SelfUs, Calls, ColumnCount };
    static constexpr int kLongNameRole = Qt::UserRole + 1;
    static constexpr int kBlockingRole = Qt::UserRole + 2;
    static constexpr int kBottleneckRole = Qt::UserRole + 3;

    explicit TfDataGraphModel(QObject *parent = nullptr);

    // Starts show in µs from `origin`, the trace's start (the timeline's 0).
    void setExecution(core::analysis::TfDataExecution execution, core::TimePs origin = 0);
    const core::analysis::TfDataExecution &execution() const { return m_execution; }
    // Index (column 0) of the bottleneck iterator, invalid when there is none.
    QModelIndex bottleneckIndex() const;

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    struct Node
    {
        int parent = -1;            // node index, -1 for top level
        int row = 0;                // position among its parent's children
        std::vector<int> children;
    };
    const std::vector<int> &childrenOf(int node) const;

    core::analysis::TfDataExecution m_execution;
    core::TimePs m_origin = 0;
    std::vector<Node> m_nodes;      // one per m_execution.iterators entry
    std::vector<int> m_top;
};

} // namespace tracedesk::views
