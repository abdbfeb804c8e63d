#include "views/panels/pytorch/pytorchstepmodel.h"

#include <QFont>

namespace tracedesk::views {

using namespace core::analysis::pytorch;

PyTorchStepModel::PyTorchStepModel(QObject *parent) : QAbstractTableModel(parent) {}

void PyTorchStepModel::setOverview(std::shared_ptr<const PyTorchOverview> overview)
{
    beginResetModel();
    m_overview = std::move(overview);
    m_categories.clear();
    if (m_overview) {
        for (int c = 0; c < kBreakdownCategoryCount; ++c) {
            if (m_overview->categoryPresent(BreakdownCategory(c)))
                m_categories.push_back(BreakdownCategory(c));
        }
    }
    endResetModel();
}

int PyTorchStepModel::stepCount() const
{
    return m_overview ? int(m_overview->steps.size()) : 0;
}

int PyTorchStepModel::rowCount(const QModelIndex &parent) const
{
    // No average row without steps: an average of nothing would read as zero time.
    return parent.isValid() || stepCount() == 0 ? 0 : stepCount() + 1;
}

int PyTorchStepModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() || !m_overview ? 0 : 2 + 2 * int(m_categories.size());
}

double PyTorchStepModel::millis(int row, int column) const
{
    const bool average = row == stepCount();
    if (column == 1)
        return (average ? m_overview->average.total
                        : double(m_overview->steps[size_t(row)].total())) /
               1e9;
    const BreakdownCategory c = m_categories[size_t((column - 2) / 2)];
    return (average ? m_overview->average[c] : double(m_overview->steps[size_t(row)][c])) / 1e9;
}

QVariant PyTorchStepModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= columnCount())
        return {};
    const int row = index.row();
    const int column = index.column();
    const bool average = row == stepCount();
    if (role == kAverageRole)
        return average;
    if (role == Qt::TextAlignmentRole)
        return column == 0 ? QVariant() : QVariant(int(Qt::AlignRight | Qt::AlignVCenter));
    if (role == Qt::FontRole && average) {
        QFont bold;
        bold.setBold(true);
        return bold;
    }
    if (column == 0) {
        if (average)
            return role == Qt::DisplayRole ? tr("Average") : QVariant();
        const QString name = QString::fromStdString(m_overview->steps[size_t(row)].name);
        if (role == Qt::DisplayRole || role == Qt::ToolTipRole)
            return name;
        if (role == kSortRole) {
            bool ok = false;
            const qlonglong n = name.toLongLong(&ok);
            return ok ? QVariant(n) : QVariant(name);
        }
        return {};
    }
    const double ms = millis(row, column);
    const bool percent = column >= 2 && (column - 2) % 2 == 1;
    const double total = millis(row, 1);
    const double value = percent ? (total > 0 ? 100.0 * ms / total : 0.0) : ms;
    if (role == kSortRole)
        return value;
    if (role == Qt::DisplayRole)
        return QString::number(value, 'f', percent ? 2 : 3);
    return {};
}

QVariant PyTorchStepModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= columnCount())
        return QAbstractTableModel::headerData(section, orientation, role);
    if (role == Qt::ToolTipRole && section >= 2)
        return tr("Time of the step no earlier category (Kernel, Memcpy, Memset, Communication, "
                  "Runtime, DataLoader, CPU Exec) already took; the categories add up to the "
                  "step total.");
    if (role != Qt::DisplayRole)
        return {};
    if (section == 0)
        return tr("Step");
    if (section == 1)
        return tr("Total (ms)");
    const QString name =
        QString::fromUtf8(breakdownCategoryName(m_categories[size_t((section - 2) / 2)]));
    return (section - 2) % 2 == 0 ? tr("%1 (ms)").arg(name) : tr("%1 (%)").arg(name);
}

bool PinnedLastProxy::lessThan(const QModelIndex &left, const QModelIndex &right) const
{
    const bool l = left.data(PyTorchStepModel::kAverageRole).toBool();
    const bool r = right.data(PyTorchStepModel::kAverageRole).toBool();
    if (l != r)   // the pinned row compares greatest ascending and least descending: always last
        return sortOrder() == Qt::AscendingOrder ? r : l;
    return QSortFilterProxyModel::lessThan(left, right);
}

} // namespace tracedesk::views
