#include "views/tracktree/trackfilterproxy.h"

#include "views/tracktree/tracktreemodel.h"

namespace tracedesk::views {

TrackFilterProxy::TrackFilterProxy(QObject *parent) : QSortFilterProxyModel(parent)
{
    // A parent stays while any descendant is accepted.
    setRecursiveFilteringEnabled(true);
}

void TrackFilterProxy::setShowEmpty(bool show)
{
    if (show == m_showEmpty)
        return;
    m_showEmpty = show;
    invalidateFilter();
}

void TrackFilterProxy::setNameFilter(const QString &text)
{
    const QString trimmed = text.trimmed();
    if (trimmed == m_filter)
        return;
    m_filter = trimmed;
    invalidateFilter();
}

bool TrackFilterProxy::nonEmpty(const QModelIndex &source) const
{
    // A track of an empty plane has no events either, so the events of the node and of its
    // plane decide; hosts count their planes' events.
    for (QModelIndex i = source; i.isValid(); i = i.parent()) {
        const auto type = TrackTreeModel::NodeType(i.data(TrackTreeModel::NodeTypeRole).toInt());
        if (type == TrackTreeModel::NodeType::Track)
            continue;
        return i.data(TrackTreeModel::EventCountRole).toULongLong() > 0;
    }
    return true;
}

bool TrackFilterProxy::nameMatches(const QModelIndex &source) const
{
    if (m_filter.isEmpty())
        return true;
    for (QModelIndex i = source; i.isValid(); i = i.parent()) {
        if (i.siblingAtColumn(TrackTreeModel::NameColumn)
                .data(Qt::DisplayRole)
                .toString()
                .contains(m_filter, Qt::CaseInsensitive))
            return true;
    }
    return false;
}

bool TrackFilterProxy::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const
{
    const QModelIndex source = sourceModel()->index(sourceRow, 0, sourceParent);
    if (!m_showEmpty && !nonEmpty(source))
        return false;
    return nameMatches(source);
}

} // namespace tracedesk::views
