#pragma once

// PivotPanel: the pivot table of the whole trace or of the timeline's area selection ("Selection
// only"): up to three nested group-by levels (name, category, track or an arg key typed in the
// Arg key field), an expandable tree with count, total, average, min, max and self time per
// group, CSV export. Clicking a group outlines its slices on the timeline (TimelineState
// highlights) and brings the first one into view. Pivots and the outline's sort run on
// workers; a stale result is dropped.

#include "core/analysis/analysiscache.h"
#include "core/query/pivot.h"
#include "views/timeline/backgroundjob.h"

#include <QPointer>
#include <QWidget>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTreeView;

namespace tracedesk::views {

class PivotTreeModel;
class TimelineState;

class PivotPanel : public QWidget
{
    Q_OBJECT

public:
    static constexpr int kLevels = 3;
    static constexpr size_t kMaxOutlined = 100'000;

    explicit PivotPanel(QWidget *parent = nullptr);
    ~PivotPanel() override;

    void setAnalyses(core::analysis::AnalysisCachePtr cache);
    void setTimelineState(TimelineState *state);

    // Sets the levels (kinds and arg key as in the combos) and recomputes.
    void setLevels(const std::vector<core::PivotKey> &levels);
    std::vector<core::PivotKey> levels() const;
    void setSelectionOnly(bool on);
    // Scopes of more slices keep none (core::PivotOptions::keepSlicesLimit): a click on a group
    // then finds its slices by a walk. Recomputes.
    void setKeptSlicesLimit(uint64_t limit);

    QTreeView *treeView() const { return m_tree; }
    PivotTreeModel *model() const { return m_model; }
    bool isComputing() const { return m_computing; }
    QString statusText() const;
    QString csv() const;
    // What a click on a row of the tree does.
    void outlineGroup(const QModelIndex &index);

signals:
    void computed();
    void outlined(quint64 count);

private:
    void recompute();
    void exportCsv();

    core::analysis::AnalysisCachePtr m_cache;
    QPointer<TimelineState> m_state;
    BackgroundJob m_job;
    BackgroundJob m_outlineJob;
    bool m_computing = false;
    uint64_t m_keptSlicesLimit = core::PivotOptions{}.keepSlicesLimit;

    QComboBox *m_level[kLevels] = {};
    QLineEdit *m_argKey = nullptr;
    bool m_levelsChosen = false;   // the user (or a caller) chose levels: keep them
    QCheckBox *m_selectionOnly = nullptr;
    QPushButton *m_export = nullptr;
    QLabel *m_status = nullptr;
    QTreeView *m_tree = nullptr;
    PivotTreeModel *m_model = nullptr;
};

} // namespace tracedesk::views
