#pragma once

// HloStatsPanel: XProf's HLO Op Stats, one row per HLO op (or per Python source line), sortable
// and filterable by text, category and bound-by, with a pie of self time by category and CSV
// export. A row names its op: clicking it outlines the op's events on the timeline; double
// clicking it (or its context menu) shows the op in the Graph Viewer. The status
// line says where the numbers come from (the profile or a recorded XProf file), the device's
// peaks and ridge point, and in one line why rates are missing when the profile has no costs.
// Computes through the AnalysisCache on a worker.

#include "core/analysis/analysiscache.h"
#include "core/analysis/hlostats.h"
#include "views/panels/common/panelcompute.h"

#include <QWidget>

#include <memory>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QStackedWidget;
class QTableView;

namespace tracedesk::views {

class HloStatsFilter;
class HloStatsModel;
class PieChartView;

class HloStatsPanel : public QWidget
{
    Q_OBJECT

public:
    explicit HloStatsPanel(QWidget *parent = nullptr);
    ~HloStatsPanel() override;

    void setAnalyses(core::analysis::AnalysisCachePtr cache);
    // Why the panel has nothing to show for `trace` (no XLA device ops), or empty.
    static QString notApplicableReason(const core::Trace &trace);
    // Shows per-op rows, clears the filters that would hide `name` and selects its row; while
    // computing, does so when the rows arrive (and returns false).
    bool selectOp(const QString &name);

    QTableView *tableView() const { return m_table; }
    HloStatsFilter *proxyModel() const { return m_proxy; }
    HloStatsModel *model() const { return m_model; }
    PieChartView *categoryChart() const { return m_byCategory; }
    QComboBox *categoryBox() const { return m_category; }
    QComboBox *boundByBox() const { return m_boundBy; }
    QCheckBox *bySourceBox() const { return m_bySource; }
    QString statusText() const;
    bool isComputing() const { return m_compute.busy(); }
    bool showsEmptyMessage() const;

signals:
    void opActivated(const QString &name);
    // A row's "Show in Graph Viewer" (its context menu, or a double click).
    void graphRequested(const QString &name, const QString &programId);
    void computed();

private:
    void showStats(std::shared_ptr<const core::analysis::HloStats> stats);
    void showRows();

    core::analysis::AnalysisCachePtr m_cache;
    std::shared_ptr<const core::analysis::HloStats> m_stats;
    QString m_pendingOp;
    PanelCompute<std::shared_ptr<const core::analysis::HloStats>> m_compute{
        this, &HloStatsPanel::showStats};

    QLineEdit *m_filter = nullptr;
    QComboBox *m_category = nullptr;
    QComboBox *m_boundBy = nullptr;
    QCheckBox *m_bySource = nullptr;
    QPushButton *m_export = nullptr;
    QLabel *m_status = nullptr;
    QStackedWidget *m_stack = nullptr;
    QWidget *m_content = nullptr;
    QLabel *m_empty = nullptr;
    QTableView *m_table = nullptr;
    HloStatsModel *m_model = nullptr;
    HloStatsFilter *m_proxy = nullptr;
    PieChartView *m_byCategory = nullptr;
};

} // namespace tracedesk::views
