#pragma once

// AnalysisTableModel: a read-only table of analysis rows for the overview and input pipeline
// panels. Each cell keeps its raw value (numbers stay numbers) under kSortRole, so a
// QSortFilterProxyModel sorts numerically, and a formatted text under Qt::DisplayRole.

#include <QAbstractTableModel>
#include <QStringList>
#include <QVariant>
#include <vector>

namespace tracedesk::views {

class AnalysisTableModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    static constexpr int kSortRole = Qt::UserRole + 1;
    // Numbers in columns listed here are shown with this many decimals (others: as integers).
    explicit AnalysisTableModel(QStringList headers, QObject *parent = nullptr);

    void setDecimals(int column, int decimals);
    void setRows(std::vector<std::vector<QVariant>> rows);
    QVariant value(int row, int column) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    QStringList m_headers;
    std::vector<int> m_decimals;
    std::vector<std::vector<QVariant>> m_rows;
};

} // namespace tracedesk::views
