#include "views/pivot/pivottreemodel.h"

#include "views/common/qtconvert.h"

#include <algorithm>

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
    orderChildren();
    endResetModel();
}

void PivotTreeModel::orderChildren()
{
    m_childList.clear();
    m_rowInParent.clear();
    if (!m_result)
        return;
    const std::vector<core::PivotNode> &nodes = m_result->nodes;
    // The result's runs, reordered in place by the column the user sorts on.
    m_childList = m_result->childList;
    const bool ascending = m_sortOrder == Qt::AscendingOrder;
    auto by = [&](auto key) {
        for (uint32_t n = 0; n < nodes.size(); ++n) {
            const std::span<uint32_t> children = childrenOf(n);
            std::stable_sort(children.begin(), children.end(), [&](uint32_t a, uint32_t b) {
                return ascending ? key(a) < key(b) : key(b) < key(a);
            });
        }
    };
    auto stat = [&](auto member) {
        by([&nodes, member](uint32_t n) { return nodes[n].stats.*member; });
    };
    switch (m_sortColumn) {
    case Group: {
        std::vector<QString> labels(nodes.size());
        for (size_t n = 1; n < nodes.size(); ++n)
            labels[n] = labelOf(uint32_t(n));
        by([&labels](uint32_t n) -> const QString & { return labels[n]; });
        break;
    }
    case Count: stat(&core::PivotStats::count); break;
    case Total: stat(&core::PivotStats::wallTotal); break;
    case Average: by([&nodes](uint32_t n) { return nodes[n].stats.averageDuration(); }); break;
    case Min: stat(&core::PivotStats::minDuration); break;
    case Max: stat(&core::PivotStats::maxDuration); break;
    case Self: stat(&core::PivotStats::selfTotal); break;
    default: break;
    }
    m_rowInParent.assign(nodes.size(), 0);
    for (uint32_t n = 0; n < nodes.size(); ++n) {
        const std::span<uint32_t> children = childrenOf(n);
        for (size_t i = 0; i < children.size(); ++i)
            m_rowInParent[children[i]] = int(i);
    }
}

std::span<uint32_t> PivotTreeModel::childrenOf(uint32_t node)
{
    const core::PivotNode &n = m_result->nodes[node];
    return {m_childList.data() + n.firstChild, n.childCount};
}

std::span<const uint32_t> PivotTreeModel::childrenOf(uint32_t node) const
{
    const core::PivotNode &n = m_result->nodes[node];
    return {m_childList.data() + n.firstChild, n.childCount};
}

void PivotTreeModel::sort(int column, Qt::SortOrder order)
{
    m_sortColumn = column;
    m_sortOrder = order;
    emit layoutAboutToBeChanged({}, QAbstractItemModel::VerticalSortHint);
    orderChildren();
    // A node keeps its internal id; only its row moves.
    const QModelIndexList from = persistentIndexList();
    QModelIndexList to;
    to.reserve(from.size());
    for (const QModelIndex &index : from) {
        const uint32_t node = nodeOf(index);
        to << createIndex(m_rowInParent[node], index.column(), quintptr(node));
    }
    changePersistentIndexList(from, to);
    emit layoutChanged({}, QAbstractItemModel::VerticalSortHint);
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
    const std::span<const uint32_t> children = childrenOf(nodeOf(parent));
    if (row >= int(children.size()))
        return {};
    return createIndex(row, column, quintptr(children[size_t(row)]));
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
    return int(childrenOf(nodeOf(parent)).size());
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
