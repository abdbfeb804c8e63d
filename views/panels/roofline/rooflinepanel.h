#pragma once

// RooflinePanel: XProf's Roofline Model. The chart (rooflinechart.h) above a table of its points
// (whole profile, each step, the top ops by self time); both filtered by HLO category and by
// what bounds a point. Clicking an op's point or row selects the op (opSelected: HLO Op Stats
// shows it) and outlines its events on the timeline (opActivated). The status line names the
// device, its peaks and ridge points, where the numbers come from, and why nothing can be drawn
// when the profile lacks costs or peaks. Computes through the AnalysisCache on a worker.

#include "core/analysis/analysiscache.h"
#include "core/analysis/roofline.h"
#include "views/panels/common/panelcompute.h"

#include <QWidget>

#include <memory>

class QComboBox;
class QLabel;
class QPushButton;
class QSortFilterProxyModel;
class QStackedWidget;
class QTableView;

namespace tracedesk::views {

class RooflineChart;
class RooflinePointsModel;

class RooflinePanel : public QWidget
{
    Q_OBJECT

public:
    explicit RooflinePanel(QWidget *parent = nullptr);
    ~RooflinePanel() override;

    void setAnalyses(core::analysis::AnalysisCachePtr cache);
    static QString notApplicableReason(const core::Trace &trace);

    RooflineChart *chart() const { return m_chart; }
    QTableView *tableView() const { return m_table; }
    RooflinePointsModel *model() const { return m_model; }
    QComboBox *categoryBox() const { return m_category; }
    QComboBox *boundByBox() const { return m_boundBy; }
    QString statusText() const;
    bool isComputing() const { return m_compute.busy(); }

signals:
    void opActivated(const QString &name);
    void opSelected(const QString &name);
    void computed();

private:
    void showModel(std::shared_ptr<const core::analysis::RooflineModel> model);
    void showPoints();
    void activateOp(const QString &name);

    core::analysis::AnalysisCachePtr m_cache;
    std::shared_ptr<const core::analysis::RooflineModel> m_roofline;
    PanelCompute<std::shared_ptr<const core::analysis::RooflineModel>> m_compute{
        this, &RooflinePanel::showModel};

    QComboBox *m_category = nullptr;
    QComboBox *m_boundBy = nullptr;
    QPushButton *m_export = nullptr;
    QLabel *m_status = nullptr;
    QStackedWidget *m_stack = nullptr;
    QLabel *m_empty = nullptr;   // why the tool has nothing for this capture
    RooflineChart *m_chart = nullptr;
    QTableView *m_table = nullptr;
    RooflinePointsModel *m_model = nullptr;
    QSortFilterProxyModel *m_proxy = nullptr;
};

} // namespace tracedesk::views
