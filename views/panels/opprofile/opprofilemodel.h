#pragma once

// OpProfileModel: a read-only tree over an immutable core OpProfile (the root node is hidden;
// its children are the top-level rows). Nodes are addressed by their index in a flat table
// built once per profile, so parent() is a lookup. kSortRole gives raw values, kNodeRole the
// node pointer (valid while the profile is set), kOpNameRole the op name of op rows.

#include "core/analysis/opprofile.h"

#include <QAbstractItemModel>

#include <memory>

namespace tracedesk::views {

class OpProfileModel : public QAbstractItemModel
{
    Q_OBJECT

public:
    enum Column {
        Name, TimePercent, Time, SelfTime, Occurrences, FlopsUtil, HbmUtil, Wasted, Category,
        ColumnCount
    };
    static constexpr int kSortRole = Qt::UserRole;
    static constexpr int kNodeRole = Qt::UserRole + 1;
    static constexpr int kOpNameRole = Qt::UserRole + 2;

    explicit OpProfileModel(QObject *parent = nullptr);

    void setProfile(std::shared_ptr<const core::analysis::OpProfile> profile);
    const core::analysis::OpProfile *profile() const { return m_profile.get(); }
    const core::analysis::OpProfileNode *node(const QModelIndex &index) const;

    // Green (well used) to red (idle hardware), from a FLOPS utilisation in [0, 1].
    static QColor utilizationColor(double utilization);

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    struct Entry
    {
        const core::analysis::OpProfileNode *node;
        int parent;     // entry index, -1 for top-level rows
        int row;
        int firstChild; // entry index of child 0
    };
    void addChildren(const core::analysis::OpProfileNode &node, int parentEntry);

    std::shared_ptr<const core::analysis::OpProfile> m_profile;
    std::vector<Entry> m_entries;
    int m_topLevel = 0;
};

} // namespace tracedesk::views
