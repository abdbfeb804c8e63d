#pragma once

// FrameworkOpStatsPanel: the framework op stats table (sortable, filterable, IDLE toggle, CSV
// export) and pie charts of self time by op type and by op, for the device and the host.
// Computes through the AnalysisCache on a worker; "Selection only" recomputes for the timeline
// area's time range.

#include "core/analysis/analysiscache.h"
#include "core/analysis/frameworkopstats.h"
#include "views/panels/common/panelcompute.h"

#include <QPointer>
#include <QWidget>

class QCheckBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;

namespace tracedesk::views {

class FrameworkPages;
class PyTorchOperatorView;
class FrameworkOpStatsModel;
class PieChartView;
class TimelineState;

class FrameworkOpStatsPanel : public QWidget
{
    Q_OBJECT

public:
    explicit FrameworkOpStatsPanel(QWidget *parent = nullptr);
    ~FrameworkOpStatsPanel() override;

    void setAnalyses(core::analysis::AnalysisCachePtr cache);
    void setTimelineState(TimelineState *state);

    // For tests and the main window.
    QTableView *tableView() const { return m_table; }
    QSortFilterProxyModel *proxyModel() const { return m_proxy; }
    FrameworkOpStatsModel *model() const { return m_model; }
    QString statusText() const;
    bool isComputing() const { return m_compute.busy(); }
    QList<PieChartView *> charts() const;

    // What the panel shows for PyTorch (Kineto) traces instead of its own content.
    PyTorchOperatorView *pytorchView() const { return m_pytorch; }

signals:
    void opActivated(const QString &name);
    void computed();

private:
    void showStats(std::shared_ptr<const core::analysis::FrameworkOpStats> stats);
    void recompute();
    void showResult();
    void exportCsv();

    core::analysis::AnalysisCachePtr m_cache;
    QPointer<TimelineState> m_state;
    std::shared_ptr<const core::analysis::FrameworkOpStats> m_stats;
    PanelCompute<std::shared_ptr<const core::analysis::FrameworkOpStats>> m_compute{
        this, &FrameworkOpStatsPanel::showStats};

    QLineEdit *m_filter = nullptr;
    QCheckBox *m_idle = nullptr;
    QCheckBox *m_selectionOnly = nullptr;
    QPushButton *m_export = nullptr;
    QLabel *m_status = nullptr;
    QTableView *m_table = nullptr;
    FrameworkOpStatsModel *m_model = nullptr;
    QSortFilterProxyModel *m_proxy = nullptr;
    PieChartView *m_deviceByType = nullptr;
    PieChartView *m_deviceByOp = nullptr;
    PieChartView *m_hostByType = nullptr;
    PieChartView *m_hostByOp = nullptr;
    FrameworkPages *m_pages = nullptr;
    PyTorchOperatorView *m_pytorch = nullptr;
};

} // namespace tracedesk::views
