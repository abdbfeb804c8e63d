#include "views/panels/opprofile/opprofilemodel.h"

#include "core/model/timeformat.h"

#include <QColor>

namespace tracedesk::views {

using core::analysis::OpProfileNode;

OpProfileModel::OpProfileModel(QObject *parent) : QAbstractItemModel(parent) {}

void OpProfileModel::addChildren(const OpProfileNode &node, int parentEntry)
{
    const int first = int(m_entries.size());
    if (parentEntry >= 0)
        m_entries[size_t(parentEntry)].firstChild = first;
    for (size_t i = 0; i < node.children.size(); ++i)
        m_entries.push_back({&node.children[i], parentEntry, int(i), -1});
    for (size_t i = 0; i < node.children.size(); ++i) {
        if (!node.children[i].children.empty())
            addChildren(node.children[i], first + int(i));
    }
}

void OpProfileModel::setProfile(std::shared_ptr<const core::analysis::OpProfile> profile)
{
    beginResetModel();
    m_profile = std::move(profile);
    m_entries.clear();
    m_topLevel = 0;
    if (m_profile) {
        m_topLevel = int(m_profile->root.children.size());
        addChildren(m_profile->root, -1);
    }
    endResetModel();
}

const OpProfileNode *OpProfileModel::node(const QModelIndex &index) const
{
    if (!index.isValid() || index.internalId() >= m_entries.size())
        return nullptr;
    return m_entries[index.internalId()].node;
}

QColor OpProfileModel::utilizationColor(double utilization)
{
    const double u = std::clamp(utilization, 0.0, 1.0);
    return QColor::fromHsvF(float(u / 3.0), 0.55f, 0.95f);   // hue 0 (red) .. 1/3 (green)
}

QModelIndex OpProfileModel::index(int row, int column, const QModelIndex &parent) const
{
    if (row < 0 || column < 0 || column >= ColumnCount)
        return {};
    if (!parent.isValid()) {
        if (row >= m_topLevel)
            return {};
        return createIndex(row, column, quintptr(row));
    }
    if (parent.internalId() >= m_entries.size())
        return {};
    const Entry &p = m_entries[parent.internalId()];
    if (row >= int(p.node->children.size()) || p.firstChild < 0)
        return {};
    return createIndex(row, column, quintptr(p.firstChild + row));
}

QModelIndex OpProfileModel::parent(const QModelIndex &child) const
{
    if (!child.isValid() || child.internalId() >= m_entries.size())
        return {};
    const int p = m_entries[child.internalId()].parent;
    if (p < 0)
        return {};
    return createIndex(m_entries[size_t(p)].row, 0, quintptr(p));
}

int OpProfileModel::rowCount(const QModelIndex &parent) const
{
    if (!parent.isValid())
        return m_topLevel;
    if (parent.column() != 0)
        return 0;
    const OpProfileNode *n = node(parent);
    return n ? int(n->children.size()) : 0;
}

int OpProfileModel::columnCount(const QModelIndex &) const
{
    return ColumnCount;
}

QVariant OpProfileModel::data(const QModelIndex &index, int role) const
{
    const OpProfileNode *n = node(index);
    if (!n)
        return {};
    const auto &m = n->metrics;
    if (role == kNodeRole)
        return QVariant::fromValue(quintptr(n));
    if (role == kOpNameRole)
        return n->type == OpProfileNode::Type::Op || n->type == OpProfileNode::Type::FusionChild
                   ? QString::fromStdString(n->name)
                   : QString();
    // Without a FLOP count (or a byte count) a utilisation is unknown, not zero: no red cell.
    const bool flopsKnown = m.flops > 0;
    const bool bytesKnown = m.bytesAccessed > 0;
    const bool colourFlops = m.timePs > 0 && !n->isIdle && flopsKnown;
    if (role == Qt::BackgroundRole && index.column() == FlopsUtil && colourFlops)
        return utilizationColor(m.flopsUtilization);
    if (role == Qt::ForegroundRole && index.column() == FlopsUtil && colourFlops)
        return QColor(Qt::black);
    if (role == Qt::ToolTipRole && index.column() == FlopsUtil && !flopsKnown)
        return tr("Not available: the profile has no FLOP count for this op.");
    if (role == Qt::ToolTipRole && index.column() == HbmUtil && !bytesKnown)
        return tr("Not available: the profile has no byte count for this op.");
    if (role == Qt::TextAlignmentRole)
        return index.column() != Name && index.column() != Category
                   ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                   : QVariant();
    if (role == Qt::ToolTipRole && index.column() == Name) {
        if (n->numChildren > int(n->children.size()))
            return tr("%1 (showing %2 of %3 children)")
                .arg(QString::fromStdString(n->name))
                .arg(n->children.size())
                .arg(n->numChildren);
        return QString::fromStdString(n->name);
    }
    const bool sort = role == kSortRole;
    if (role != Qt::DisplayRole && !sort)
        return {};
    auto pct = [&](double f) -> QVariant {
        return sort ? QVariant(f) : QString::number(f * 100.0, 'f', 2) + QLatin1Char('%');
    };
    // Unknown sorts below every known value.
    auto unknown = [&]() -> QVariant { return sort ? QVariant(-1.0) : tr("not available"); };
    auto time = [&](core::TimePs t) -> QVariant {
        return sort ? QVariant(qlonglong(t)) : QString::fromStdString(core::formatDuration(t));
    };
    switch (Column(index.column())) {
    case Name: return QString::fromStdString(n->name);
    case TimePercent: return pct(m.timeFraction);
    case Time: return time(m.timePs);
    case SelfTime: return time(m.selfTimePs);
    case Occurrences: return qlonglong(m.occurrences);
    case FlopsUtil: return flopsKnown ? pct(m.flopsUtilization) : unknown();
    case HbmUtil: return bytesKnown ? pct(m.hbmUtilization) : unknown();
    case Wasted: return pct(m.wastedFraction);
    case Category: return QString::fromStdString(n->category);
    case ColumnCount: break;
    }
    return {};
}

QVariant OpProfileModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractItemModel::headerData(section, orientation, role);
    static const char *const kHeaders[] = {"Op", "Time %", "Time", "Self time", "Occurrences",
                                           "FLOPS util.", "HBM BW util.", "Time wasted",
                                           "Category"};
    return section >= 0 && section < ColumnCount ? tr(kHeaders[section]) : QVariant();
}

} // namespace tracedesk::views
