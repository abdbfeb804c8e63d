#pragma once

// InputPipelinePanel: XProf's input pipeline analyzer. A summary (input-bound or not, by how
// much), the device side (stacked step-time chart with the input share, step-time statistics),
// the host side (input time by category) and the sortable input op statistics table. Clicking
// an op row emits opActivated; clicking a step emits timeActivated with the step's start.

#include "core/analysis/analysiscache.h"
#include "core/analysis/inputpipeline.h"
#include "views/panels/common/panelcompute.h"

#include <QWidget>

class QLabel;
class QSortFilterProxyModel;
class QTableView;

namespace tracedesk::views {

class FrameworkPages;
class NotApplicableView;
class AnalysisTableModel;
class StepTimeChart;
struct StepChartData;

class InputPipelinePanel : public QWidget
{
    Q_OBJECT

public:
    explicit InputPipelinePanel(QWidget *parent = nullptr);
    ~InputPipelinePanel() override;

    void setAnalyses(core::analysis::AnalysisCachePtr cache);

    bool isComputing() const { return m_compute.busy(); }
    QString statusText() const;
    QString summaryText() const;
    QString deviceText() const;
    AnalysisTableModel *hostModel() const { return m_host; }
    AnalysisTableModel *opsModel() const { return m_ops; }
    QSortFilterProxyModel *opsProxy() const { return m_proxy; }
    QTableView *opsView() const { return m_table; }
    StepTimeChart *stepChart() const { return m_chart; }

    // What the panel shows for PyTorch (Kineto) traces instead of its own content.
    NotApplicableView *pytorchView() const { return m_pytorch; }

signals:
    void opActivated(const QString &name);
    void timeActivated(core::TimePs t);
    void computed();

private:
    // The analysis and its step chart, both built on the worker.
    struct Computed
    {
        std::shared_ptr<const core::analysis::InputPipelineAnalysis> analysis;
        std::shared_ptr<StepChartData> chart;
    };
    void showAnalysis(Computed result);
    void showResult(StepChartData chart);

    core::analysis::AnalysisCachePtr m_cache;
    std::shared_ptr<const core::analysis::InputPipelineAnalysis> m_result;
    PanelCompute<Computed> m_compute{this, &InputPipelinePanel::showAnalysis};
    QLabel *m_status = nullptr;
    QLabel *m_summary = nullptr;
    QLabel *m_device = nullptr;
    StepTimeChart *m_chart = nullptr;
    AnalysisTableModel *m_host = nullptr;
    AnalysisTableModel *m_ops = nullptr;
    QSortFilterProxyModel *m_proxy = nullptr;
    QTableView *m_table = nullptr;
    FrameworkPages *m_pages = nullptr;
    NotApplicableView *m_pytorch = nullptr;
};

} // namespace tracedesk::views
