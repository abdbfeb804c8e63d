#pragma once

// TrackTreeModel: a read-only tree over one Trace — hosts, their planes, the planes' tracks.
//
// Planes are grouped under the host whose file they came from. Within a host, device planes come
// first, then host planes, then the rest (metadata, other), each group in Plane::sortIndex order;
// tracks follow Track::sortIndex. The tree is computed once per setTrace() and shares the Trace
// read-only, so the model never walks events after that. Sibling planes that share a name
// (Chrome processes of one program) are told apart by their id.

#include "core/model/trace.h"

#include <QAbstractItemModel>

#include <vector>

namespace tracedesk::views {

class TrackTreeModel : public QAbstractItemModel
{
    Q_OBJECT

public:
    enum Column { NameColumn, EventsColumn, SpanColumn, ColumnCount };
    enum class NodeType { Host, Plane, Track };
    enum Role {
        NodeTypeRole = Qt::UserRole + 1,   // int(NodeType)
        IndexRole,                         // plane or track index in the Trace; -1 for hosts
        EventCountRole,                    // quint64
        SpanRole,                          // qint64 picoseconds
    };

    explicit TrackTreeModel(QObject *parent = nullptr);

    // `unnamedHost` labels planes without a host (Chrome JSON); e.g. the trace's file name.
    void setTrace(core::TracePtr trace, const QString &unnamedHost = {});
    const core::TracePtr &trace() const { return m_trace; }

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    // Where a track sits in the tree (invalid when there is no such track).
    QModelIndex indexForTrack(uint32_t track) const;

private:
    struct Node
    {
        NodeType type = NodeType::Host;
        int index = -1;          // plane/track index in the Trace, -1 for hosts
        int parent = -1;         // node id, -1 for top level
        int row = 0;             // position among its siblings
        QString name;
        quint64 events = 0;
        core::TimePs begin = 0;
        core::TimePs end = 0;
        bool hasSpan = false;
        std::vector<int> children;
    };

    void rebuild();
    int addNode(Node node);
    void addSpan(Node &node, core::TimePs begin, core::TimePs end, bool hasSpan);
    const Node *nodeFor(const QModelIndex &index) const;
    const std::vector<int> &childrenOf(const QModelIndex &parent) const;

    core::TracePtr m_trace;
    QString m_unnamedHost;
    std::vector<Node> m_nodes;
    std::vector<int> m_roots;
    std::vector<int> m_trackNode;   // track index -> node id
};

} // namespace tracedesk::views
