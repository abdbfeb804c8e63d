#include "views/tracktree/tracktreemodel.h"

#include "views/common/planetitle.h"
#include "views/common/qtconvert.h"


#include <algorithm>
#include <map>

namespace tracedesk::views {

namespace {

int planeGroup(core::PlaneKind kind)
{
    switch (kind) {
    case core::PlaneKind::Device:
        return 0;
    case core::PlaneKind::Host:
        return 1;
    default:
        return 2;
    }
}

QString nameOr(std::string_view name, const QString &fallback)
{
    return name.empty() ? fallback : toQString(name);
}

} // namespace

TrackTreeModel::TrackTreeModel(QObject *parent) : QAbstractItemModel(parent) {}

void TrackTreeModel::setTrace(core::TracePtr trace, const QString &unnamedHost)
{
    beginResetModel();
    m_trace = std::move(trace);
    m_unnamedHost = unnamedHost;
    rebuild();
    endResetModel();
}

int TrackTreeModel::addNode(Node node)
{
    m_nodes.push_back(std::move(node));
    return int(m_nodes.size() - 1);
}

void TrackTreeModel::addSpan(Node &node, core::TimePs begin, core::TimePs end, bool hasSpan)
{
    if (!hasSpan)
        return;
    node.begin = node.hasSpan ? std::min(node.begin, begin) : begin;
    node.end = node.hasSpan ? std::max(node.end, end) : end;
    node.hasSpan = true;
}

void TrackTreeModel::rebuild()
{
    m_nodes.clear();
    m_roots.clear();
    m_trackNode.clear();
    if (!m_trace)
        return;
    const core::Trace &trace = *m_trace;
    m_trackNode.assign(trace.tracks.size(), -1);

    // Hosts keep the order in which their first plane appears (by sortIndex).
    std::vector<uint32_t> planes(trace.planes.size());
    for (uint32_t i = 0; i < planes.size(); ++i)
        planes[i] = i;
    std::stable_sort(planes.begin(), planes.end(), [&](uint32_t a, uint32_t b) {
        const core::Plane &pa = trace.planes[a];
        const core::Plane &pb = trace.planes[b];
        const int ga = planeGroup(pa.kind);
        const int gb = planeGroup(pb.kind);
        if (ga != gb)
            return ga < gb;
        return pa.sortIndex < pb.sortIndex;
    });
    std::vector<core::StringId> hostOrder;
    std::map<core::StringId, std::vector<uint32_t>> planesByHost;
    for (uint32_t p : planes) {
        const core::StringId host = trace.planes[p].host;
        if (!planesByHost.count(host))
            hostOrder.push_back(host);
        planesByHost[host].push_back(p);
    }
    m_nodes.reserve(hostOrder.size() + trace.planes.size() + trace.tracks.size());

    for (core::StringId host : hostOrder) {
        Node hostNode;
        hostNode.type = NodeType::Host;
        hostNode.row = int(m_roots.size());
        hostNode.name = nameOr(trace.string(host), m_unnamedHost.isEmpty() ? tr("(unnamed host)")
                                                                           : m_unnamedHost);
        const int hostId = addNode(std::move(hostNode));
        m_roots.push_back(hostId);

        for (uint32_t p : planesByHost[host]) {
            const core::Plane &plane = trace.planes[p];
            Node planeNode;
            planeNode.type = NodeType::Plane;
            planeNode.index = int(p);
            planeNode.parent = hostId;
            planeNode.row = int(m_nodes[hostId].children.size());
            planeNode.name = planeTitle(trace, p);
            const int planeId = addNode(std::move(planeNode));
            m_nodes[hostId].children.push_back(planeId);

            std::vector<uint32_t> tracks = plane.tracks;
            std::stable_sort(tracks.begin(), tracks.end(), [&](uint32_t a, uint32_t b) {
                return trace.tracks[a].sortIndex < trace.tracks[b].sortIndex;
            });
            for (uint32_t t : tracks) {
                const core::Track &track = trace.tracks[t];
                Node trackNode;
                trackNode.type = NodeType::Track;
                trackNode.index = int(t);
                trackNode.parent = planeId;
                trackNode.row = int(m_nodes[planeId].children.size());
                trackNode.name = nameOr(trace.string(track.name),
                                        tr("Track %1").arg(track.sourceId));
                trackNode.events = track.eventCount();
                const bool hasSpan = track.sliceCount > 0 || track.counter.size() > 0;
                addSpan(trackNode, track.begin, track.end, hasSpan);
                const int trackId = addNode(std::move(trackNode));
                m_nodes[planeId].children.push_back(trackId);
                m_trackNode[t] = trackId;

                Node &planeRef = m_nodes[planeId];
                planeRef.events += track.eventCount();
                addSpan(planeRef, track.begin, track.end, hasSpan);
            }
            const Node planeCopy = m_nodes[planeId];
            Node &hostRef = m_nodes[hostId];
            hostRef.events += planeCopy.events;
            addSpan(hostRef, planeCopy.begin, planeCopy.end, planeCopy.hasSpan);
        }
    }
}

const TrackTreeModel::Node *TrackTreeModel::nodeFor(const QModelIndex &index) const
{
    if (!index.isValid() || index.model() != this)
        return nullptr;
    const auto id = index.internalId();
    return id < m_nodes.size() ? &m_nodes[id] : nullptr;
}

const std::vector<int> &TrackTreeModel::childrenOf(const QModelIndex &parent) const
{
    if (!parent.isValid())
        return m_roots;
    static const std::vector<int> kNone;
    const Node *node = nodeFor(parent);
    // Only column 0 has children, as QTreeView and QAbstractItemModelTester expect.
    return node && parent.column() == 0 ? node->children : kNone;
}

QModelIndex TrackTreeModel::index(int row, int column, const QModelIndex &parent) const
{
    const std::vector<int> &children = childrenOf(parent);
    if (row < 0 || column < 0 || column >= ColumnCount || row >= int(children.size()))
        return {};
    return createIndex(row, column, quintptr(children[size_t(row)]));
}

QModelIndex TrackTreeModel::parent(const QModelIndex &child) const
{
    const Node *node = nodeFor(child);
    if (!node || node->parent < 0)
        return {};
    const Node &parentNode = m_nodes[size_t(node->parent)];
    return createIndex(parentNode.row, 0, quintptr(node->parent));
}

int TrackTreeModel::rowCount(const QModelIndex &parent) const
{
    return int(childrenOf(parent).size());
}

int TrackTreeModel::columnCount(const QModelIndex &) const
{
    return ColumnCount;
}

QVariant TrackTreeModel::data(const QModelIndex &index, int role) const
{
    const Node *node = nodeFor(index);
    if (!node)
        return {};
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case NameColumn:
            return node->name;
        case EventsColumn:
            return countText(node->events);
        case SpanColumn:
            return node->hasSpan ? durationText(node->end - node->begin) : QString();
        }
        return {};
    case Qt::ToolTipRole:
        if (index.column() == NameColumn)
            return node->name;
        return {};
    case Qt::TextAlignmentRole:
        if (index.column() != NameColumn)
            return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case NodeTypeRole:
        return int(node->type);
    case IndexRole:
        return node->index;
    case EventCountRole:
        return quint64(node->events);
    case SpanRole:
        return qint64(node->hasSpan ? node->end - node->begin : 0);
    }
    return {};
}

QVariant TrackTreeModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case NameColumn:
        return tr("Name");
    case EventsColumn:
        return tr("Events");
    case SpanColumn:
        return tr("Span");
    }
    return {};
}

QModelIndex TrackTreeModel::indexForTrack(uint32_t track) const
{
    if (track >= m_trackNode.size() || m_trackNode[track] < 0)
        return {};
    const int id = m_trackNode[track];
    return createIndex(m_nodes[size_t(id)].row, 0, quintptr(id));
}

} // namespace tracedesk::views
