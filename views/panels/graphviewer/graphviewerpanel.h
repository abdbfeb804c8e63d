#pragma once

// GraphViewerPanel: XProf's Graph Viewer. The HLO graph around a chosen op (an op of the
// profile's HLO Op Stats, or typed), out to a depth the user sets, fusions expandable, nodes
// coloured by their share of the device's op time; laid out by Graphviz on a worker and drawn
// zoomable (hlographview.h). A click on a node selects that op (opSelected: HLO Op Stats) and
// outlines its events on the timeline (opActivated). Export DOT and SVG. When the profile holds
// no HLO modules, one line says so.

#include "core/analysis/analysiscache.h"
#include "core/analysis/hlograph.h"
#include "core/graph/graphvizlayout.h"
#include "views/panels/common/panelcompute.h"

#include <QWidget>

#include <map>

class QCheckBox;
class QComboBox;
class QLabel;
class QPushButton;
class QSpinBox;
class QStackedWidget;

namespace tracedesk::views {

class HloGraphView;

// What the worker hands the panel: the graph, its layout and exports, or why there is none.
struct HloGraphResult
{
    QString error;
    core::analysis::HloGraph graph;
    core::graph::GraphLayout layout;
    std::map<std::string, double> timeShare;
    std::string dot;
    std::string svg;
};

class GraphViewerPanel : public QWidget
{
    Q_OBJECT

public:
    explicit GraphViewerPanel(QWidget *parent = nullptr);
    ~GraphViewerPanel() override;

    void setAnalyses(core::analysis::AnalysisCachePtr cache);
    static QString notApplicableReason(const core::Trace &trace);
    // Shows the graph around `op` of program `programId` (empty: any program holding it).
    void showOp(const QString &op, const QString &programId = {});

    HloGraphView *graphView() const { return m_view; }
    QComboBox *opBox() const { return m_op; }
    QSpinBox *depthBox() const { return m_depth; }
    QCheckBox *expandBox() const { return m_expand; }
    QString statusText() const;
    bool isComputing() const { return m_compute.busy(); }
    const HloGraphResult &result() const { return m_result; }

signals:
    void opActivated(const QString &name);
    void opSelected(const QString &name);
    void computed();

private:
    void recompute();
    void showResult(HloGraphResult result);
    // The ops to choose from (name, program id), by self time.
    void listOps(std::vector<std::pair<QString, QString>> ops);
    void exportAs(const QString &format);

    core::analysis::AnalysisCachePtr m_cache;
    HloGraphResult m_result;
    PanelCompute<HloGraphResult> m_compute{this, &GraphViewerPanel::showResult};
    PanelCompute<std::vector<std::pair<QString, QString>>> m_ops{this,
                                                                  &GraphViewerPanel::listOps};
    QString m_pendingOp;
    QString m_pendingProgram;

    QComboBox *m_op = nullptr;
    QSpinBox *m_depth = nullptr;
    QCheckBox *m_expand = nullptr;
    QPushButton *m_exportDot = nullptr;
    QPushButton *m_exportSvg = nullptr;
    QLabel *m_status = nullptr;
    QStackedWidget *m_stack = nullptr;
    QLabel *m_empty = nullptr;
    HloGraphView *m_view = nullptr;
};

} // namespace tracedesk::views
