#pragma once

// RooflinePointsModel: the Roofline Model's points as a table (whole profile, steps, ops), with
// numbers the profile cannot give left empty. kSortRole gives raw values; kOpNameRole the op's
// name on op rows, empty on the whole-profile and step rows.

#include "core/analysis/roofline.h"

#include <QAbstractTableModel>

namespace tracedesk::views {

class RooflinePointsModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column {
        Kind, Name, Category, Occurrences, SelfUs, SelfPercent, GflopsPerSecond,
        HbmGibPerSecond, Intensity, BoundBy, ColumnCount
    };
    static constexpr int kSortRole = Qt::UserRole;
    static constexpr int kOpNameRole = Qt::UserRole + 1;

    explicit RooflinePointsModel(QObject *parent = nullptr);

    void setPoints(std::vector<core::analysis::RooflinePoint> points);
    const std::vector<core::analysis::RooflinePoint> &points() const { return m_points; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    std::vector<core::analysis::RooflinePoint> m_points;
};

} // namespace tracedesk::views
