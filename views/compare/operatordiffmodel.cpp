#include "views/compare/operatordiffmodel.h"

#include "views/compare/opdiffmodel.h"

#include "core/model/timeformat.h"

#include <QBrush>
#include <QColor>
#include <QFont>

#include <cmath>

namespace tracedesk::views {

using namespace core::compare;

namespace {

QString duration(double us)
{
    return QString::fromStdString(
        core::formatDuration(core::TimePs(std::llround(std::abs(us) * 1e6)), 3));
}

QString signedDuration(double us)
{
    if (std::llround(std::abs(us) * 1e6) == 0)
        return QStringLiteral("0");
    return (us < 0 ? QStringLiteral("−") : QStringLiteral("+")) + duration(us);
}

QString gpuWork(const OperatorDiffRow &row, bool b)
{
    if (!(b ? row.inB : row.inA))
        return QStringLiteral("—");
    const int64_t n = row.kernelCount(b);
    if (n == 0)
        return OperatorDiffModel::tr("no GPU work");
    // The family holding most of this side's time names the kind of work.
    const FamilyTimes *top = nullptr;
    for (const FamilyTimes &f : row.families) {
        const double us = b ? f.usB : f.usA;
        if (us > 0 && (!top || us > (b ? top->usB : top->usA)))
            top = &f;
    }
    QString text =
        (n == 1 ? OperatorDiffModel::tr("1 GPU op, %1")
                : OperatorDiffModel::tr("%1 GPU ops, %2").arg(n))
            .arg(duration(row.kernelUs(b)));
    if (top)
        text += QStringLiteral(" · ") + QString::fromLatin1(kernelFamilyName(top->family));
    return text;
}

QString kernelList(const OperatorDiffRow &row, bool b)
{
    const auto &kernels = b ? row.kernelsB : row.kernelsA;
    if (kernels.empty())
        return {};
    QString html = QStringLiteral("<table>");
    for (const OperatorKernel &k : kernels) {
        html += QStringLiteral("<tr><td>%1×</td><td>%2</td><td>%3</td><td>%4</td></tr>")
                    .arg(k.count)
                    .arg(duration(k.us), QString::fromLatin1(kernelFamilyName(k.family)),
                         QString::fromStdString(k.name).toHtmlEscaped());
    }
    return html + QStringLiteral("</table>");
}

QString operatorText(const OperatorDiffRow &row)
{
    QString text = QString::fromStdString(row.opName);
    if (row.opNameB != row.opName)
        text += QStringLiteral("  ↔  ") + QString::fromStdString(row.opNameB);
    if (!row.inputShapes.empty())
        text += QLatin1Char(' ') + QString::fromStdString(row.inputShapes);
    return text;
}

} // namespace

OperatorDiffModel::OperatorDiffModel(QObject *parent)
    : QAbstractTableModel(parent)
{}

void OperatorDiffModel::setComparison(std::shared_ptr<const PyTorchComparison> comparison,
                                      OperatorGrouping grouping)
{
    beginResetModel();
    m_comparison = std::move(comparison);
    m_grouping = grouping;
    endResetModel();
}

void OperatorDiffModel::setGrouping(OperatorGrouping grouping)
{
    beginResetModel();
    m_grouping = grouping;
    endResetModel();
}

const OperatorDiffRow *OperatorDiffModel::rowAt(int row) const
{
    if (!m_comparison || row < 0)
        return nullptr;
    const auto &rows = m_comparison->rows(m_grouping);
    return size_t(row) < rows.size() ? &rows[size_t(row)] : nullptr;
}

int OperatorDiffModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() || !m_comparison ? 0 : int(m_comparison->rows(m_grouping).size());
}

int OperatorDiffModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant OperatorDiffModel::data(const QModelIndex &index, int role) const
{
    const OperatorDiffRow *row = rowAt(index.row());
    if (!row)
        return {};
    const int column = index.column();
    if (role == Qt::DisplayRole) {
        switch (column) {
        case OperatorColumn:
            return operatorText(*row);
        case MatchColumn:
            switch (row->match) {
            case OperatorMatch::Name:
                return tr("name");
            case OperatorMatch::CallPath:
                return tr("call path");
            case OperatorMatch::Unmatched:
                return row->inA ? tr("only A") : tr("only B");
            }
            return {};
        case ChangeColumn:
            return QString::fromLatin1(opChangeName(row->change));
        case DeltaColumn:
            return signedDuration(row->deltaUs);
        case DeviceAColumn:
            return row->inA ? duration(row->deviceSelfUsA) : QStringLiteral("—");
        case DeviceBColumn:
            return row->inB ? duration(row->deviceSelfUsB) : QStringLiteral("—");
        case CallsAColumn:
            return row->inA ? QVariant(qlonglong(row->callsA)) : QVariant("—");
        case CallsBColumn:
            return row->inB ? QVariant(qlonglong(row->callsB)) : QVariant("—");
        case GpuWorkAColumn:
            return gpuWork(*row, false);
        case GpuWorkBColumn:
            return gpuWork(*row, true);
        case CallPathColumn:
            return QString::fromStdString(row->callPath);
        }
        return {};
    }
    if (role == kSortRole) {
        switch (column) {
        case DeltaColumn:
            return row->deltaUs;
        case DeviceAColumn:
            return row->deviceSelfUsA;
        case DeviceBColumn:
            return row->deviceSelfUsB;
        case CallsAColumn:
            return qlonglong(row->callsA);
        case CallsBColumn:
            return qlonglong(row->callsB);
        case GpuWorkAColumn:
            return row->kernelUs(false);
        case GpuWorkBColumn:
            return row->kernelUs(true);
        default:
            return data(index, Qt::DisplayRole);
        }
    }
    if (role == Qt::ToolTipRole) {
        if (column == GpuWorkAColumn || column == GpuWorkBColumn)
            return kernelList(*row, column == GpuWorkBColumn);
        if (column == OperatorColumn || column == CallPathColumn)
            return QString::fromStdString(row->callPath + (row->callPath.empty() ? "" : " > ") +
                                          row->opName);
        if (column == MatchColumn && row->match == OperatorMatch::CallPath)
            return tr("Different names in the same place of the call tree");
        return {};
    }
    if (role == Qt::ForegroundRole && (column == ChangeColumn || column == DeltaColumn))
        return QBrush(opChangeColor(row->change));
    if (role == Qt::FontRole && row->annotation && column == OperatorColumn) {
        QFont font;
        font.setItalic(true);
        return font;
    }
    if (role == Qt::TextAlignmentRole && column >= DeltaColumn && column <= CallsBColumn)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

QVariant OperatorDiffModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case OperatorColumn:
        return tr("Operator (A ↔ B)");
    case MatchColumn:
        return tr("Matched by");
    case ChangeColumn:
        return tr("Change");
    case DeltaColumn:
        return tr("Δ device self");
    case DeviceAColumn:
        return tr("Device self A");
    case DeviceBColumn:
        return tr("Device self B");
    case CallsAColumn:
        return tr("Calls A");
    case CallsBColumn:
        return tr("Calls B");
    case GpuWorkAColumn:
        return tr("GPU work A");
    case GpuWorkBColumn:
        return tr("GPU work B");
    case CallPathColumn:
        return tr("Call path");
    }
    return {};
}

QString operatorMatchText(const OperatorMatchSummary &s)
{
    auto share = [](double part, double whole) {
        return whole > 0 ? QString::number(100.0 * part / whole, 'f', 1) + QLatin1Char('%')
                         : QStringLiteral("—");
    };
    return OperatorDiffModel::tr("Operators: %1 in A, %2 in B; %3 matched by name, %4 by call "
                                 "path (%5 of A's and %6 of B's operator device time); %7 only "
                                 "in A, %8 only in B.")
        .arg(s.operatorsA)
        .arg(s.operatorsB)
        .arg(s.byName)
        .arg(s.byCallPath)
        .arg(share(s.matchedDeviceSelfUsA, s.deviceSelfUsA),
             share(s.matchedDeviceSelfUsB, s.deviceSelfUsB))
        .arg(s.onlyA)
        .arg(s.onlyB);
}

} // namespace tracedesk::views
