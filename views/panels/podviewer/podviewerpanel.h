#pragma once

// PodViewerPanel: XProf's pod viewer. A step slider picks one of the steps common to all hosts;
// a stacked column per worker (or TPU core) shows that step's time by category (Qt Charts
// QStackedBarSeries); hovering a column fills the details card, clicking it emits
// hostActivated with the worker's host. Computes through the AnalysisCache on a worker thread.

#include "core/analysis/podviewer.h"
#include "views/panels/common/panelcompute.h"

#include <QStringList>
#include <QWidget>

#include <memory>
#include <vector>

class QChartView;
class QLabel;
class QSlider;

namespace tracedesk::views {

class FrameworkPages;
class NotApplicableView;
class PodViewerPanel : public QWidget
{
    Q_OBJECT

public:
    explicit PodViewerPanel(QWidget *parent = nullptr);
    ~PodViewerPanel() override;

    // nullptr clears. Computes podViewer(*cache) on a worker; "Computing..." meanwhile.
    void setAnalyses(core::analysis::AnalysisCachePtr cache);
    // Shows data read elsewhere (e.g. a legacy *.pod_viewer.json).
    void setData(std::shared_ptr<const core::analysis::PodViewerData> data);

    bool isComputing() const { return m_compute.busy(); }
    QString statusText() const;
    QString diagnosticsText() const;
    QString detailsText() const;
    int stepCount() const;
    int currentStep() const { return m_step; }  // index into the data's steps
    void setCurrentStep(int index);
    // Columns of the current step, in display order.
    QStringList columnLabels() const;
    QString columnHost(int column) const;
    std::vector<double> columnValues(int column) const;   // one per series, microseconds
    void showDetails(int column);
    void activateColumn(int column);
    QSlider *stepSlider() const { return m_slider; }
    QChartView *chartView() const { return m_chart; }

    // What the panel shows for PyTorch (Kineto) traces instead of its own content.
    NotApplicableView *pytorchView() const { return m_pytorch; }

signals:
    void hostActivated(const QString &host);
    void computed();

private:
    void showData();
    void showStep();
    const core::analysis::PodRecord *record(int column) const;

    PanelCompute<std::shared_ptr<const core::analysis::PodViewerData>> m_compute{
        this, &PodViewerPanel::setData};
    core::analysis::AnalysisCachePtr m_cache;
    std::shared_ptr<const core::analysis::PodViewerData> m_data;
    int m_step = -1;
    std::vector<size_t> m_order;    // record indices of the current step in column order
    double m_maxTotal = 0;
    std::vector<bool> m_seriesUsed;   // per series: non-zero in some record
    QLabel *m_status = nullptr;
    QLabel *m_diagnostics = nullptr;
    QLabel *m_stepLabel = nullptr;
    QSlider *m_slider = nullptr;
    QChartView *m_chart = nullptr;
    QLabel *m_card = nullptr;
    FrameworkPages *m_pages = nullptr;
    NotApplicableView *m_pytorch = nullptr;
};

} // namespace tracedesk::views
