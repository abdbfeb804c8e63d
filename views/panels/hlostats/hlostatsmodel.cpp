#include "views/panels/hlostats/hlostatsmodel.h"

namespace tracedesk::views {

using core::analysis::HloStatsRow;

HloStatsModel::HloStatsModel(QObject *parent) : QAbstractTableModel(parent) {}

void HloStatsModel::setRows(std::vector<HloStatsRow> rows, bool bySource)
{
    beginResetModel();
    m_rows = std::move(rows);
    m_bySource = bySource;
    endResetModel();
    emit headerDataChanged(Qt::Horizontal, 0, ColumnCount - 1);
}

int HloStatsModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int HloStatsModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant HloStatsModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= int(m_rows.size()))
        return {};
    const HloStatsRow &r = m_rows[size_t(index.row())];
    const auto column = Column(index.column());
    if (role == kOpNameRole)
        return m_bySource ? QString() : QString::fromStdString(r.hloOpName);
    if (role == Qt::ToolTipRole) {
        switch (column) {
        case Op: return QString::fromStdString(r.hloOpName);
        case Expression: return QString::fromStdString(r.expression);
        case FrameworkOp: return QString::fromStdString(r.frameworkOp);
        case Source: return QString::fromStdString(r.sourceInfo);
        default: return {};
        }
    }
    if (role == Qt::TextAlignmentRole)
        return column >= Occurrences && column <= Intensity
                   ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                   : QVariant();
    const bool sort = role == kSortRole;
    if (role != Qt::DisplayRole && !sort)
        return {};
    auto text = [&](const std::string &s) -> QVariant { return QString::fromStdString(s); };
    auto number = [&](double v, int decimals) -> QVariant {
        return sort ? QVariant(v) : QVariant(QString::number(v, 'f', decimals));
    };
    // Unknown is not zero: an empty cell, sorted below every known value.
    auto maybe = [&](const std::optional<double> &v, int decimals) -> QVariant {
        if (!v)
            return sort ? QVariant(-1.0) : QVariant(QString());
        return number(*v, decimals);
    };
    switch (column) {
    case Rank: return r.rank;
    case Program: return text(r.programId);
    case Category: return text(r.category);
    case Op: return text(r.hloOpName);
    case Expression: return text(r.expression);
    case FrameworkOp: return text(r.frameworkOp);
    case Occurrences: return qlonglong(r.occurrences);
    case TotalUs: return number(r.totalTimeUs, 3);
    case AvgUs: return number(r.avgTimeUs, 3);
    case SelfUs: return number(r.totalSelfTimeUs, 3);
    case AvgSelfUs: return number(r.avgSelfTimeUs, 3);
    case SelfPercent: return number(r.selfTimePercent, 2);
    case CumulativePercent: return number(r.cumulativeSelfTimePercent, 2);
    case GflopsPerSecond: return maybe(r.gflopsPerSecond, 2);
    case HbmGibPerSecond: return maybe(r.hbmBwGibPerSecond, 2);
    case Intensity: return maybe(r.operationalIntensity, 3);
    case BoundBy: return text(r.boundBy);
    case Rematerialization: return text(r.rematerialization);
    case OutsideCompilation: return text(r.outsideCompilation);
    case Autotuned: return text(r.autotuned);
    case Source: return text(r.sourceInfo);
    case ColumnCount: break;
    }
    return {};
}

QVariant HloStatsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || (role != Qt::DisplayRole && role != Qt::ToolTipRole))
        return QAbstractTableModel::headerData(section, orientation, role);
    if (section < 0 || section >= ColumnCount)
        return {};
    if (role == Qt::ToolTipRole) {
        switch (Column(section)) {
        case GflopsPerSecond: return tr("FLOPs over the op's whole time (its nested ops' FLOPs "
                                        "are its own), in GFLOP/s");
        case HbmGibPerSecond: return tr("Bytes accessed over the op's time, in GiB/s");
        case Intensity: return tr("FLOPs per byte accessed");
        case BoundBy: return tr("Compute when the operational intensity reaches the device's "
                                "ridge point (peak FLOP rate / peak HBM bandwidth), else HBM");
        default: return {};
        }
    }
    if (section == Op && m_bySource)
        return tr("Source line");
    // Estimated costs say so in the header of every number made from them.
    const bool estimated = !m_rows.empty() && m_rows.front().costEstimated;
    if (estimated && section == GflopsPerSecond)
        return tr("GFLOP/s (est.)");
    if (estimated && section == HbmGibPerSecond)
        return tr("HBM GiB/s (est.)");
    if (estimated && section == Intensity)
        return tr("FLOP/byte (est.)");
    if (section == Expression && m_bySource)
        return tr("HLO ops");
    static const char *const kHeaders[] = {
        "Rank", "Program", "Category", "HLO op", "Op text", "Framework op", "Occurrences",
        "Total (us)", "Avg (us)", "Self (us)", "Avg self (us)", "Self %", "Cumulative %",
        "GFLOP/s", "HBM GiB/s", "FLOP/byte", "Bound by", "Remat", "Outside compilation",
        "Autotuned", "Source"};
    return tr(kHeaders[section]);
}

HloStatsFilter::HloStatsFilter(HloStatsModel *source, QObject *parent)
    : QSortFilterProxyModel(parent), m_source(source)
{
    setSourceModel(source);
    setSortRole(HloStatsModel::kSortRole);
    setFilterCaseSensitivity(Qt::CaseInsensitive);
    setFilterKeyColumn(-1);
}

void HloStatsFilter::setCategory(const QString &category)
{
    m_category = category;
    invalidateFilter();
}

void HloStatsFilter::setBoundBy(const QString &boundBy)
{
    m_boundBy = boundBy;
    invalidateFilter();
}

bool HloStatsFilter::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const
{
    if (sourceRow < 0 || sourceRow >= int(m_source->rows().size()))
        return false;
    const HloStatsRow &r = m_source->rows()[size_t(sourceRow)];
    if (!m_category.isEmpty() && QString::fromStdString(r.category) != m_category)
        return false;
    if (!m_boundBy.isEmpty() && QString::fromStdString(r.boundBy) != m_boundBy)
        return false;
    return QSortFilterProxyModel::filterAcceptsRow(sourceRow, sourceParent);
}

} // namespace tracedesk::views
