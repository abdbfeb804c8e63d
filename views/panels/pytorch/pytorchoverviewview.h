#pragma once

// PyTorchOverviewView: the overview of a PyTorch profiler (Kineto) trace, the PyTorch page of
// the Overview panel. Average step time with its breakdown, the run environment (device type,
// the GPUs the trace lists, the process group), the GPU summary per device, the
// recommendations the overview computed, the stacked step-time chart (click a step to show it
// on the timeline) and the per-step breakdown table with its average.
//
// Computes pytorchOverview() through the AnalysisCache on a worker; GUI thread only otherwise.

#include "core/analysis/analysiscache.h"
#include "core/analysis/pytorch/pytorchoverview.h"
#include "core/analysis/pytorch/pytorchsteps.h"
#include "views/panels/common/panelcompute.h"

#include <QWidget>

class QLabel;
class QSortFilterProxyModel;
class QTableView;

namespace tracedesk::views {

class PyTorchStepModel;
class StepTimeChart;

class PyTorchOverviewView : public QWidget
{
    Q_OBJECT

public:
    explicit PyTorchOverviewView(QWidget *parent = nullptr);
    ~PyTorchOverviewView() override;

    void setAnalyses(core::analysis::AnalysisCachePtr cache);

    // For tests.
    bool isComputing() const { return m_compute.busy(); }
    QString statusText() const;
    QString summaryText() const;
    QString environmentText() const;
    QString gpuText() const;
    QString recommendationText() const;
    PyTorchStepModel *stepModel() const { return m_model; }
    QTableView *stepTable() const { return m_table; }
    StepTimeChart *stepChart() const { return m_chart; }

signals:
    void timeActivated(core::TimePs t);
    void computed();

private:
    static QString iterationText(const core::analysis::pytorch::PyTorchOverview &o);
    struct Result
    {
        std::shared_ptr<const core::analysis::pytorch::PyTorchOverview> overview;
        std::shared_ptr<const core::analysis::pytorch::PyTorchSteps> steps;
        std::string scopeLabel; // "rank 3 of 8" for a merged rank run, else empty
        std::string scopeHost;  // "rank 3" for a merged rank run, else empty
        bool pytorch = true;    // else another profiler's GPU capture (Nsight Systems, ...)
    };
    void showResult(Result result);
    void show(const Result &result);
    void clear();
    QString environment(const core::analysis::pytorch::PyTorchOverview &o,
                        const std::string &scopeHost, bool pytorch) const;

    core::analysis::AnalysisCachePtr m_cache;
    Result m_result;
    PanelCompute<Result> m_compute{this, &PyTorchOverviewView::showResult};
    QLabel *m_status = nullptr;
    QLabel *m_summary = nullptr;
    QLabel *m_environment = nullptr;
    QLabel *m_gpus = nullptr;
    QLabel *m_recommendations = nullptr;
    StepTimeChart *m_chart = nullptr;
    PyTorchStepModel *m_model = nullptr;
    QSortFilterProxyModel *m_proxy = nullptr;
    QTableView *m_table = nullptr;
};

} // namespace tracedesk::views
