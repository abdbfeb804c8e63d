#pragma once

// PyTorchStepModel: the step-time breakdown of a PyTorch overview as a table, one row per kept
// step plus an "Average" row: the step, its total, then milliseconds and percent of the step for
// each category the overview shows (PyTorchOverview::categoryPresent). Display role: formatted
// text; kSortRole: the raw number (the step number for the step column); kAverageRole: true on
// the average row, which PinnedLastProxy keeps below the steps in either sort order.

#include "core/analysis/pytorch/pytorchoverview.h"

#include <QAbstractTableModel>
#include <QSortFilterProxyModel>

#include <memory>

namespace tracedesk::views {

class PyTorchStepModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    static constexpr int kSortRole = Qt::UserRole;
    static constexpr int kAverageRole = Qt::UserRole + 1;

    explicit PyTorchStepModel(QObject *parent = nullptr);

    void setOverview(std::shared_ptr<const core::analysis::pytorch::PyTorchOverview> overview);
    // The categories shown, in column order (each has an ms and a % column).
    const std::vector<core::analysis::pytorch::BreakdownCategory> &categories() const
    {
        return m_categories;
    }
    int stepCount() const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    // Milliseconds of column `column` (>= 1) on row `row`; the average row is the last.
    double millis(int row, int column) const;

    std::shared_ptr<const core::analysis::pytorch::PyTorchOverview> m_overview;
    std::vector<core::analysis::pytorch::BreakdownCategory> m_categories;
};

// Sorts like QSortFilterProxyModel but keeps rows with kAverageRole set last.
class PinnedLastProxy : public QSortFilterProxyModel
{
    Q_OBJECT

public:
    using QSortFilterProxyModel::QSortFilterProxyModel;

protected:
    bool lessThan(const QModelIndex &left, const QModelIndex &right) const override;
};

} // namespace tracedesk::views
