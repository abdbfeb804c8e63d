#pragma once

// MemoryViewerPanel: XLA buffer assignment per HLO module and memory space (FORMATS.md 2.13).
// Module and memory-space selectors, overview figures, the workspace chart (heap over program
// order, padded and unpadded, a line at the peak), and the buffers live at the peak by program
// order and by size. Hovering a buffer draws its lifetime on the workspace chart (thicker for
// larger buffers) and shows its card. Computes through the AnalysisCache on a worker.

#include "core/analysis/analysiscache.h"
#include "core/analysis/memoryviewer.h"
#include "views/panels/common/panelcompute.h"

#include <QWidget>

#include <memory>
#include <optional>

class QChart;
class QChartView;
class QComboBox;
class QLabel;
class QLineSeries;
class QStackedWidget;

namespace tracedesk::views {

class FrameworkPages;
class NotApplicableView;
class TimelineState;

class MemoryViewerPanel : public QWidget
{
    Q_OBJECT

public:
    explicit MemoryViewerPanel(QWidget *parent = nullptr);
    ~MemoryViewerPanel() override;

    void setAnalyses(core::analysis::AnalysisCachePtr cache);
    void setTimelineState(TimelineState *) {}

    // For tests and the window.
    QComboBox *moduleCombo() const { return m_module; }
    QComboBox *memorySpaceCombo() const { return m_space; }
    QChart *workspaceChart() const { return m_workspace; }
    QChart *programOrderChart() const { return m_byOrder; }
    QChart *bySizeChart() const { return m_bySize; }
    QString statusText() const;
    QString overviewText() const;
    QString bufferCardText() const;
    bool isComputing() const { return m_modulesCompute.busy() || m_viewerCompute.busy(); }
    const core::analysis::MemoryViewerResult *result() const;
    // Hover the `index`-th heap object at the peak (program order), as the charts do.
    void hoverBuffer(int index);
    // Points of the lifetime line drawn for the hovered buffer (empty when none).
    int lifetimePointCount() const;
    qreal lifetimePenWidth() const;

    // What the panel shows for PyTorch (Kineto) traces instead of its own content.
    NotApplicableView *pytorchView() const { return m_pytorch; }

signals:
    void computed();

private:
    void showModules(std::shared_ptr<const core::analysis::HloModuleSet> set);
    void showViewer(core::Result<core::analysis::MemoryViewerResult> r);
    void recompute();
    void computeModule();
    void showResult();
    void fillBufferChart(QChart *chart, bool bySize);

    core::analysis::AnalysisCachePtr m_cache;
    std::shared_ptr<const core::analysis::HloModuleSet> m_modules;
    std::optional<core::analysis::MemoryViewerResult> m_result;
    QString m_error;
    // The module list first, then the chosen module's buffers.
    PanelCompute<std::shared_ptr<const core::analysis::HloModuleSet>> m_modulesCompute{
        this, &MemoryViewerPanel::showModules};
    PanelCompute<core::Result<core::analysis::MemoryViewerResult>> m_viewerCompute{
        this, &MemoryViewerPanel::showViewer};

    QComboBox *m_module = nullptr;
    QComboBox *m_space = nullptr;
    QLabel *m_status = nullptr;
    QLabel *m_overview = nullptr;
    QLabel *m_card = nullptr;
    QStackedWidget *m_stack = nullptr;
    QLabel *m_empty = nullptr;
    QChart *m_workspace = nullptr;
    QChart *m_byOrder = nullptr;
    QChart *m_bySize = nullptr;
    QLineSeries *m_lifetime = nullptr;
    FrameworkPages *m_pages = nullptr;
    NotApplicableView *m_pytorch = nullptr;
};

} // namespace tracedesk::views
