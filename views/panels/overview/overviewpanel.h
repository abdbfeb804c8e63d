#pragma once

// OverviewPanel: XProf's overview page. Performance summary cards, the per-step stacked
// step-time chart (click a step to jump there on the timeline), the top 10 device ops (click to
// highlight the op), run environment, recommendation with the bottleneck classification, and
// the diagnostics. Computes through the AnalysisCache on a worker.

#include "core/analysis/analysiscache.h"
#include "core/analysis/overview.h"
#include "views/panels/common/panelcompute.h"

#include <QWidget>

class QLabel;
class QSortFilterProxyModel;
class QTableView;

namespace tracedesk::views {

class FrameworkPages;
class PyTorchOverviewView;
class AnalysisTableModel;
class StepTimeChart;
struct StepChartData;

class OverviewPanel : public QWidget
{
    Q_OBJECT

public:
    explicit OverviewPanel(QWidget *parent = nullptr);
    ~OverviewPanel() override;

    void setAnalyses(core::analysis::AnalysisCachePtr cache);

    // For tests and the main window.
    // Either page: the XProf overview, or the PyTorch one on a Kineto trace.
    bool isComputing() const;
    QString statusText() const;
    QString summaryText() const;
    QString recommendationText() const;
    QString environmentText() const;
    QString diagnosticsText() const;
    AnalysisTableModel *topOpsModel() const { return m_topOps; }
    QSortFilterProxyModel *topOpsProxy() const { return m_proxy; }
    QTableView *topOpsView() const { return m_table; }
    StepTimeChart *stepChart() const { return m_chart; }
    std::shared_ptr<const core::analysis::OverviewPage> page() const { return m_page; }

    // What the panel shows for PyTorch (Kineto) traces instead of its own content.
    PyTorchOverviewView *pytorchView() const { return m_pytorch; }

signals:
    void opActivated(const QString &name);
    void timeActivated(core::TimePs t);
    void computed();

private:
    // The page and its step chart, both built on the worker.
    struct Computed
    {
        std::shared_ptr<const core::analysis::OverviewPage> page;
        std::shared_ptr<StepChartData> chart;
    };
    void showComputed(Computed result);
    void showPage(StepChartData chart);

    core::analysis::AnalysisCachePtr m_cache;
    std::shared_ptr<const core::analysis::OverviewPage> m_page;
    PanelCompute<Computed> m_compute{this, &OverviewPanel::showComputed};
    QLabel *m_status = nullptr;
    QLabel *m_summary = nullptr;
    QLabel *m_recommendation = nullptr;
    QLabel *m_environment = nullptr;
    QLabel *m_diagnostics = nullptr;
    StepTimeChart *m_chart = nullptr;
    QWidget *m_chartCard = nullptr;   // the chart's card, hidden without steps
    AnalysisTableModel *m_topOps = nullptr;
    QSortFilterProxyModel *m_proxy = nullptr;
    QTableView *m_table = nullptr;
    FrameworkPages *m_pages = nullptr;
    PyTorchOverviewView *m_pytorch = nullptr;
};

// The stacked step chart of an input pipeline analysis (GPU/CPU or TPU categories); callable
// on a worker.
StepChartData inputStepChart(const core::analysis::InputPipelineAnalysis &a, const QString &title);
// A labelled box around a widget, the panels' "card".
QWidget *makeCard(const QString &title, QWidget *content, QWidget *parent);

} // namespace tracedesk::views
