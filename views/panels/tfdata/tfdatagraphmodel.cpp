#include "views/panels/tfdata/tfdatagraphmodel.h"

#include <QBrush>
#include <QColor>
#include <QFont>

#include <unordered_map>

namespace tracedesk::views {

namespace {

double us(core::TimePs ps) { return double(ps) / 1e6; }

} // namespace

TfDataGraphModel::TfDataGraphModel(QObject *parent) : QAbstractItemModel(parent) {}

void TfDataGraphModel::setExecution(core::analysis::TfDataExecution execution,
                                    core::TimePs origin)
{
    beginResetModel();
    m_origin = origin;
    m_execution = std::move(execution);
    m_nodes.assign(m_execution.iterators.size(), Node{});
    m_top.clear();
    std::unordered_map<int64_t, int> byId;
    for (size_t i = 0; i < m_execution.iterators.size(); ++i)
        byId.emplace(m_execution.iterators[i].id, int(i));
    for (size_t i = 0; i < m_execution.iterators.size(); ++i) {
        const auto &it = m_execution.iterators[i];
        auto p = it.parentId != 0 ? byId.find(it.parentId) : byId.end();
        if (p != byId.end() && p->second != int(i)) {
            m_nodes[i].parent = p->second;
            m_nodes[i].row = int(m_nodes[size_t(p->second)].children.size());
            m_nodes[size_t(p->second)].children.push_back(int(i));
        } else {
            m_nodes[i].row = int(m_top.size());
            m_top.push_back(int(i));
        }
    }
    endResetModel();
}

const std::vector<int> &TfDataGraphModel::childrenOf(int node) const
{
    return node < 0 ? m_top : m_nodes[size_t(node)].children;
}

QModelIndex TfDataGraphModel::bottleneckIndex() const
{
    for (size_t i = 0; i < m_execution.iterators.size(); ++i) {
        if (m_execution.bottleneckId != 0 && m_execution.iterators[i].id == m_execution.bottleneckId)
            return createIndex(m_nodes[i].row, 0, quintptr(i));
    }
    return {};
}

QModelIndex TfDataGraphModel::index(int row, int column, const QModelIndex &parent) const
{
    if (column < 0 || column >= ColumnCount || row < 0)
        return {};
    if (parent.isValid() && parent.column() != 0)
        return {};
    const auto &kids = childrenOf(parent.isValid() ? int(parent.internalId()) : -1);
    if (row >= int(kids.size()))
        return {};
    return createIndex(row, column, quintptr(kids[size_t(row)]));
}

QModelIndex TfDataGraphModel::parent(const QModelIndex &child) const
{
    if (!child.isValid())
        return {};
    const int p = m_nodes[child.internalId()].parent;
    if (p < 0)
        return {};
    return createIndex(m_nodes[size_t(p)].row, 0, quintptr(p));
}

int TfDataGraphModel::rowCount(const QModelIndex &parent) const
{
    if (parent.isValid() && parent.column() != 0)
        return 0;
    return int(childrenOf(parent.isValid() ? int(parent.internalId()) : -1).size());
}

int TfDataGraphModel::columnCount(const QModelIndex &) const
{
    return ColumnCount;
}

QVariant TfDataGraphModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.internalId() >= m_execution.iterators.size())
        return {};
    const auto &it = m_execution.iterators[index.internalId()];
    const bool bottleneck = m_execution.bottleneckId != 0 && it.id == m_execution.bottleneckId;
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case Iterator: return QString::fromUtf8(it.name().data(), qsizetype(it.name().size()));
        case StartUs: return QString::number(us(it.start - m_origin), 'f', 3);
        case TotalUs: return QString::number(us(it.duration), 'f', 3);
        case SelfUs: return QString::number(us(it.selfTime), 'f', 3);
        case Calls: return qlonglong(it.calls);
        default: return {};
        }
    case Qt::ToolTipRole:
        return QStringLiteral("%1\nid %2%3")
            .arg(QString::fromUtf8(it.longName.data(), qsizetype(it.longName.size())))
            .arg(it.id)
            .arg(bottleneck ? QStringLiteral("\nbottleneck")
                 : it.blocking ? QStringLiteral("\non the critical path")
                               : QString());
    case Qt::TextAlignmentRole:
        return index.column() == Iterator ? QVariant()
                                          : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::FontRole:
        if (it.blocking) {
            QFont f;
            f.setBold(true);
            return f;
        }
        return {};
    case Qt::ForegroundRole:
        if (bottleneck)
            return QBrush(QColor(200, 0, 0));
        return {};
    case kLongNameRole: return QString::fromUtf8(it.longName.data(), qsizetype(it.longName.size()));
    case kBlockingRole: return it.blocking;
    case kBottleneckRole: return bottleneck;
    default: return {};
    }
}

QVariant TfDataGraphModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Iterator: return tr("Iterator");
    case StartUs: return tr("Start (us)");
    case TotalUs: return tr("Total (us)");
    case SelfUs: return tr("Self (us)");
    case Calls: return tr("Calls");
    default: return {};
    }
}

} // namespace tracedesk::views
