#include "views/pivot/pivottreemodel.h"

#include "views/common/qtconvert.h"

namespace tracedesk::views {

PivotTreeModel::PivotTreeModel(QObject *parent)
    : QAbstractItemModel(parent)
{}

void PivotTreeModel::setResult(core::TracePtr trace,
                               std::shared_ptr<const core::PivotResult> result)
{
    beginResetModel();
    m_trace = std::move(trace);
    m_result = m_trace ? std::move(result) : nullptr;
    m_rowInParent.clear();
    if (m_result) {
        m_rowInParent.assign(m_result->nodes.size(), 0);
        for (const core::PivotNode &n : m_result->nodes) {
            for (size_t i = 0; i < n.children.size(); ++i)
                m_rowInParent[n.children[i]] = int(i);
        }
    }
    endResetModel();
}

uint32_t PivotTreeModel::nodeOf(const QModelIndex &index) const
{
    return index.isValid() ? uint32_t(index.internalId()) : 0;
}

QString PivotTreeModel::labelOf(uint32_t node) const
{
    if (!m_result || !m_trace)
        return {};
    return QString::fromStdString(core::pivotLabel(*m_trace, *m_result, node));
}

QModelIndex PivotTreeModel::index(int row, int column, const QModelIndex &parent) const
{
    if (!m_result || row < 0 || column < 0 || column >= ColumnCount)
        return {};
    const core::PivotNode &p = m_result->nodes[nodeOf(parent)];
    if (row >= int(p.children.size()))
        return {};
    return createIndex(row, column, quintptr(p.children[size_t(row)]));
}

QModelIndex PivotTreeModel::parent(const QModelIndex &child) const
{
    if (!m_result || !child.isValid())
        return {};
    const uint32_t parent = m_result->nodes[nodeOf(child)].parent;
    if (parent == 0)
        return {};
    return createIndex(m_rowInParent[parent], 0, quintptr(parent));
}

int PivotTreeModel::rowCount(const QModelIndex &parent) const
{
    if (!m_result || parent.column() > 0)
        return 0;
    return int(m_result->nodes[nodeOf(parent)].children.size());
}

int PivotTreeModel::columnCount(const QModelIndex &) const
{
    return ColumnCount;
}

QVariant PivotTreeModel::data(const QModelIndex &index, int role) const
{
    if (!m_result || !index.isValid())
        return {};
    const core::PivotStats &s = m_result->nodes[nodeOf(index)].stats;
    if (role == Qt::TextAlignmentRole && index.column() != Group)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole && index.column() == Group)
        return labelOf(nodeOf(index));
    if (role != Qt::DisplayRole && role != kSortRole)
        return {};
    const bool raw = role == kSortRole;
    auto time = [&](double ps) -> QVariant {
        return raw ? QVariant(ps) : QVariant(durationText(core::TimePs(ps + 0.5)));
    };
    switch (index.column()) {
    case Group:
        return labelOf(nodeOf(index));
    case Count:
        return raw ? QVariant(qulonglong(s.count)) : QVariant(countText(s.count));
    case Total:
        return time(double(s.wallTotal));
    case Average:
        return time(s.averageDuration());
    case Min:
        return time(double(s.minDuration));
    case Max:
        return time(double(s.maxDuration));
    case Self:
        return time(double(s.selfTotal));
    default:
        return {};
    }
}

QVariant PivotTreeModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Group:
        return tr("Group");
    case Count:
        return tr("Count");
    case Total:
        return tr("Total");
    case Average:
        return tr("Average");
    case Min:
        return tr("Min");
    case Max:
        return tr("Max");
    case Self:
        return tr("Self");
    default:
        return {};
    }
}

} // namespace tracedesk::views
