#include "views/panels/roofline/rooflinepointsmodel.h"

namespace tracedesk::views {

using core::analysis::RooflinePoint;

RooflinePointsModel::RooflinePointsModel(QObject *parent) : QAbstractTableModel(parent) {}

void RooflinePointsModel::setPoints(std::shared_ptr<const core::analysis::RooflineModel> source,
                                    std::vector<uint32_t> rows)
{
    beginResetModel();
    m_source = std::move(source);
    m_rows = m_source ? std::move(rows) : std::vector<uint32_t>{};
    endResetModel();
}

const RooflinePoint &RooflinePointsModel::point(int row) const
{
    return m_source->points[m_rows[size_t(row)]];
}

int RooflinePointsModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int RooflinePointsModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant RooflinePointsModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= int(m_rows.size()))
        return {};
    const RooflinePoint &p = point(index.row());
    const auto column = Column(index.column());
    if (role == kOpNameRole)
        return p.kind == RooflinePoint::Kind::Op ? QString::fromStdString(p.name) : QString();
    if (role == Qt::ToolTipRole && column == Name)
        return QString::fromStdString(p.name);
    if (role == Qt::TextAlignmentRole)
        return column >= Occurrences && column <= Intensity
                   ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                   : QVariant();
    const bool sort = role == kSortRole;
    if (role != Qt::DisplayRole && !sort)
        return {};
    auto number = [&](double v, int decimals) -> QVariant {
        return sort ? QVariant(v) : QVariant(QString::number(v, 'f', decimals));
    };
    auto maybe = [&](const std::optional<double> &v, int decimals) -> QVariant {
        if (!v)
            return sort ? QVariant(-1.0) : QVariant(QString());
        return number(*v, decimals);
    };
    switch (column) {
    case Kind:
        if (sort)
            return int(p.kind);
        return p.kind == RooflinePoint::Kind::Total  ? tr("Whole profile")
               : p.kind == RooflinePoint::Kind::Step ? tr("Step")
                                                     : tr("Op");
    case Name: return QString::fromStdString(p.name);
    case Category: return QString::fromStdString(p.category);
    case Occurrences: return qlonglong(p.occurrences);
    case SelfUs: return number(p.totalSelfTimeUs, 3);
    case SelfPercent: return number(p.selfTimePercent, 2);
    case GflopsPerSecond: return maybe(p.gflopsPerSecond, 2);
    case HbmGibPerSecond: return maybe(p.hbmBwGibPerSecond, 2);
    case Intensity: return maybe(p.operationalIntensity, 3);
    case BoundBy: return QString::fromStdString(p.boundBy);
    case ColumnCount: break;
    }
    return {};
}

QVariant RooflinePointsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    static const char *const kHeaders[] = {"Point", "Name", "Category", "Occurrences",
                                           "Self (us)", "Self %", "GFLOP/s", "HBM GiB/s",
                                           "FLOP/byte", "Bound by"};
    return section >= 0 && section < ColumnCount ? tr(kHeaders[section]) : QVariant();
}

} // namespace tracedesk::views
