#include "views/panels/pytorch/pytorchoperatormodel.h"

#include <QFont>

namespace tracedesk::views {

using namespace core::analysis::pytorch;

namespace {

const std::vector<OperatorRow> kNoRows;

bool hasShapes(OperatorGrouping g)
{
    return g == OperatorGrouping::NameInputShapes ||
           g == OperatorGrouping::NameInputShapesCallStack;
}

bool hasStack(OperatorGrouping g)
{
    return g == OperatorGrouping::NameCallStack || g == OperatorGrouping::NameInputShapesCallStack;
}

} // namespace

PyTorchOperatorModel::PyTorchOperatorModel(QObject *parent) : QAbstractTableModel(parent) {}

void PyTorchOperatorModel::setStats(std::shared_ptr<const OperatorStats> stats,
                                    OperatorGrouping grouping)
{
    beginResetModel();
    m_stats = std::move(stats);
    m_grouping = grouping;
    m_columns.clear();
    if (m_stats) {
        m_columns.push_back(Name);
        if (hasShapes(grouping))
            m_columns.push_back(InputShapes);
        if (hasStack(grouping))
            m_columns.push_back(CallStack);
        m_columns.insert(m_columns.end(), {Calls, HostSelfUs, HostTotalUs});
        if (m_stats->hasDeviceColumns)
            m_columns.insert(m_columns.end(), {DeviceSelfUs, DeviceTotalUs});
        m_columns.push_back(TensorCoreEligible);
        if (m_stats->hasDeviceColumns)
            m_columns.insert(m_columns.end(), {TensorCoreSelfPercent, TensorCoreTotalPercent});
    }
    endResetModel();
}

const std::vector<OperatorRow> &PyTorchOperatorModel::rows() const
{
    return m_stats ? m_stats->rows(m_grouping) : kNoRows;
}

int PyTorchOperatorModel::columnOf(Column column) const
{
    for (size_t i = 0; i < m_columns.size(); ++i) {
        if (m_columns[i] == column)
            return int(i);
    }
    return -1;
}

int PyTorchOperatorModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(rows().size());
}

int PyTorchOperatorModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_columns.size());
}

QVariant PyTorchOperatorModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= columnCount())
        return {};
    const OperatorRow &r = rows()[size_t(index.row())];
    const Column column = m_columns[size_t(index.column())];
    if (role == kOpNameRole)
        return QString::fromStdString(r.opName);
    const auto text = [&](const std::string &s) -> QVariant {
        if (role == Qt::DisplayRole || role == kSortRole)
            return QString::fromStdString(s);
        if (role == Qt::ToolTipRole)   // call stacks are ';'-separated frames
            return QString::fromStdString(s).replace(QLatin1Char(';'), QLatin1Char('\n'));
        return {};
    };
    const auto number = [&](double v, int decimals) -> QVariant {
        if (role == kSortRole)
            return v;
        if (role == Qt::DisplayRole)
            return QString::number(v, 'f', decimals);
        if (role == Qt::TextAlignmentRole)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    };
    if (column == Name && r.annotation) {
        // Not an operator: an annotation or Python frame that launched GPU work itself.
        if (role == Qt::FontRole) {
            QFont italic;
            italic.setItalic(true);
            return italic;
        }
        if (role == Qt::ToolTipRole)
            return tr("%1: a user annotation or Python function that launched GPU work outside "
                      "any operator (no operator encloses the launch)")
                .arg(QString::fromStdString(r.opName));
    }
    switch (column) {
    case Name: return text(r.opName);
    case InputShapes: return text(r.inputShapes);
    case CallStack: return text(r.callStack);
    case Calls: return number(double(r.calls), 0);
    case HostSelfUs: return number(r.hostSelfUs, 3);
    case HostTotalUs: return number(r.hostTotalUs, 3);
    case DeviceSelfUs: return number(r.deviceSelfUs, 3);
    case DeviceTotalUs: return number(r.deviceTotalUs, 3);
    case TensorCoreSelfPercent: return number(r.tensorCoreSelfPercent, 2);
    case TensorCoreTotalPercent: return number(r.tensorCoreTotalPercent, 2);
    case TensorCoreEligible:
        if (role == kSortRole)
            return r.tensorCoreEligible;
        if (role == Qt::DisplayRole)
            return r.tensorCoreEligible ? tr("Yes") : tr("No");
        return {};
    }
    return {};
}

QVariant PyTorchOperatorModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= columnCount())
        return QAbstractTableModel::headerData(section, orientation, role);
    const Column column = m_columns[size_t(section)];
    if (role == Qt::ToolTipRole) {
        switch (column) {
        case HostSelfUs:
            return tr("CPU time of the operator minus its child operators and launches");
        case DeviceSelfUs:
            return tr("GPU time of the kernels, copies and sets the operator itself launched");
        case DeviceTotalUs: return tr("GPU time launched by the operator and everything it called");
        case TensorCoreEligible: return tr("The operator can run on Tensor Cores");
        default: return {};
        }
    }
    if (role != Qt::DisplayRole)
        return {};
    switch (column) {
    case Name: return tr("Operator");
    case InputShapes: return tr("Input shapes");
    case CallStack: return tr("Call stack");
    case Calls: return tr("Calls");
    case HostSelfUs: return tr("Host self (µs)");
    case HostTotalUs: return tr("Host total (µs)");
    case DeviceSelfUs: return tr("Device self (µs)");
    case DeviceTotalUs: return tr("Device total (µs)");
    case TensorCoreEligible: return tr("Tensor Cores eligible");
    case TensorCoreSelfPercent: return tr("Tensor Cores self (%)");
    case TensorCoreTotalPercent: return tr("Tensor Cores total (%)");
    }
    return {};
}

} // namespace tracedesk::views
