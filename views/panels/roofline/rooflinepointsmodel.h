#pragma once

// RooflinePointsModel: the Roofline Model's points as a table (whole profile, steps, ops), with
// numbers the profile cannot give left empty. kSortRole gives raw values; kOpNameRole the op's
// name on op rows, empty on the whole-profile and step rows.
//
// Rows are indices into the shared model's points, which the chart shares too: the table and
// the chart hold no copy of a point (each is about 250 bytes of strings and optional numbers).

#include "core/analysis/roofline.h"

#include <QAbstractTableModel>

#include <memory>
#include <vector>

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

    // Shows source->points[i] for each i of `rows`, in that order; a null source shows none.
    void setPoints(std::shared_ptr<const core::analysis::RooflineModel> source,
                   std::vector<uint32_t> rows);
    const core::analysis::RooflinePoint &point(int row) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    std::shared_ptr<const core::analysis::RooflineModel> m_source;
    std::vector<uint32_t> m_rows;
};

} // namespace tracedesk::views
