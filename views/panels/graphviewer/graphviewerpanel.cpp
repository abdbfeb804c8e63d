#include "views/panels/graphviewer/graphviewerpanel.h"

#include "core/analysis/hlodot.h"
#include "core/analysis/hlostats.h"

#include "views/panels/common/xlatoolchoices.h"
#include "views/panels/graphviewer/hlographview.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSpinBox>
#include <QStackedWidget>
#include <QVBoxLayout>

#include <utility>

namespace tracedesk::views {

using namespace core::analysis;

GraphViewerPanel::GraphViewerPanel(QWidget *parent) : QWidget(parent)
{
    m_op = new QComboBox(this);
    m_op->setEditable(true);
    m_op->setInsertPolicy(QComboBox::NoInsert);
    m_op->setMinimumContentsLength(36);
    m_op->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_op->lineEdit()->setPlaceholderText(tr("HLO op name"));
    m_op->setToolTip(tr("The op at the centre of the graph (the profile's ops by self time)"));
    m_depth = new QSpinBox(this);
    m_depth->setRange(0, 8);
    m_depth->setValue(2);
    m_depth->setPrefix(tr("Depth "));
    m_depth->setToolTip(tr("Edges from the op to show, towards its operands and its users"));
    m_expand = new QCheckBox(tr("Expand fusions"), this);
    m_expand->setToolTip(tr("Show the instructions each fusion fused, in a dashed box"));
    m_exportDot = new QPushButton(tr("Export DOT..."), this);
    m_exportSvg = new QPushButton(tr("Export SVG..."), this);
    m_exportDot->setEnabled(false);
    m_exportSvg->setEnabled(false);
    m_status = new QLabel(tr("No profile"), this);
    m_status->setWordWrap(true);
    m_view = new HloGraphView(this);
    m_empty = new QLabel(this);
    m_empty->setAlignment(Qt::AlignCenter);
    m_empty->setWordWrap(true);
    m_stack = new QStackedWidget(this);
    m_stack->addWidget(m_view);
    m_stack->addWidget(m_empty);

    auto *bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Op:"), this));
    bar->addWidget(m_op, 1);
    bar->addWidget(m_depth);
    bar->addWidget(m_expand);
    bar->addWidget(m_exportDot);
    bar->addWidget(m_exportSvg);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(bar);
    layout->addWidget(m_status);
    layout->addWidget(m_stack, 1);

    connect(m_op, &QComboBox::activated, this, [this] { recompute(); });
    connect(m_op->lineEdit(), &QLineEdit::returnPressed, this, [this] { recompute(); });
    connect(m_depth, &QSpinBox::valueChanged, this, [this] { recompute(); });
    connect(m_expand, &QCheckBox::toggled, this, [this] { recompute(); });
    connect(m_exportDot, &QPushButton::clicked, this, [this] { exportAs(QStringLiteral("dot")); });
    connect(m_exportSvg, &QPushButton::clicked, this, [this] { exportAs(QStringLiteral("svg")); });
    connect(m_view, &HloGraphView::nodeClicked, this, [this](const QString &name) {
        emit opSelected(name);
        emit opActivated(name);
    });
}

GraphViewerPanel::~GraphViewerPanel() = default;

QString GraphViewerPanel::notApplicableReason(const core::Trace &trace)
{
    return xlaToolReason(trace, tr("The Graph Viewer draws XLA (HLO) graphs"));
}

QString GraphViewerPanel::statusText() const
{
    return m_status->text();
}

void GraphViewerPanel::setAnalyses(AnalysisCachePtr cache)
{
    m_compute.cancel();
    m_ops.cancel();
    m_cache = std::move(cache);
    m_result = {};
    m_view->clearGraph();
    m_op->clear();
    m_exportDot->setEnabled(false);
    m_exportSvg->setEnabled(false);
    if (!m_cache) {
        m_status->setText(tr("No profile"));
        return;
    }
    if (const QString why = notApplicableReason(m_cache->trace()); !why.isEmpty()) {
        m_empty->setText(why);
        m_stack->setCurrentWidget(m_empty);
        m_status->setText(tr("No HLO graphs"));
        return;
    }
    m_stack->setCurrentWidget(m_view);
    m_status->setText(tr("Computing..."));
    AnalysisCachePtr c = m_cache;
    m_ops.start([c] {
        std::vector<std::pair<QString, QString>> ops;
        for (const HloStatsRow &r : hloStats(*c)->rows)
            ops.emplace_back(QString::fromStdString(r.hloOpName),
                             QString::fromStdString(r.programId));
        return ops;
    });
}

void GraphViewerPanel::listOps(std::vector<std::pair<QString, QString>> ops)
{
    m_op->blockSignals(true);
    m_op->clear();
    for (const auto &[name, program] : ops)
        m_op->addItem(name, program);
    m_op->blockSignals(false);
    if (!m_pendingOp.isEmpty()) {
        showOp(std::exchange(m_pendingOp, QString()), std::exchange(m_pendingProgram, QString()));
        return;
    }
    if (ops.empty()) {
        m_empty->setText(tr("This profile has no XLA (HLO) ops to draw."));
        m_stack->setCurrentWidget(m_empty);
        m_status->setText(tr("No HLO ops"));
        emit computed();
        return;
    }
    m_op->setCurrentIndex(0);   // the op with the most self time
    recompute();
}

void GraphViewerPanel::showOp(const QString &op, const QString &programId)
{
    if (m_ops.busy()) {   // the op list is still coming: show this op once it is there
        m_pendingOp = op;
        m_pendingProgram = programId;
        return;
    }
    m_pendingOp.clear();
    m_pendingProgram.clear();
    int index = -1;
    for (int i = 0; i < m_op->count() && index < 0; ++i) {
        if (m_op->itemText(i) == op && (programId.isEmpty() || m_op->itemData(i) == programId))
            index = i;
    }
    if (index >= 0)
        m_op->setCurrentIndex(index);
    else
        m_op->setEditText(op);
    recompute();
}

void GraphViewerPanel::recompute()
{
    m_compute.cancel();
    if (!m_cache)
        return;
    const std::string op = m_op->currentText().trimmed().toStdString();
    if (op.empty())
        return;
    // The program of the listed op of that name; a typed name searches every module.
    uint64_t program = 0;
    const int index = m_op->findText(m_op->currentText().trimmed());
    if (index >= 0)
        program = m_op->itemData(index).toString().toULongLong();
    HloGraphOptions options;
    options.depth = m_depth->value();
    options.expandFusions = m_expand->isChecked();
    m_status->setText(tr("Laying out the graph around %1...").arg(QString::fromStdString(op)));
    AnalysisCachePtr c = m_cache;
    m_compute.start([c, op, program, options] {
        HloGraphResult out;
        const auto modules = traceHloModules(*c);
        auto graph = hloNeighbourhood(*modules->index, program, op, options);
        if (!graph) {
            out.error = QString::fromStdString(graph.message());
            return out;
        }
        out.graph = std::move(graph.value());
        out.timeShare = hloTimeShares(*hloStats(*c), out.graph.module);
        out.dot = hloGraphDot(out.graph, out.timeShare);
        auto layout = core::graph::layoutDot(out.dot);
        if (!layout) {
            out.error = QString::fromStdString(layout.message());
            return out;
        }
        out.layout = std::move(layout.value());
        if (auto svg = core::graph::renderDot(out.dot, "svg"))
            out.svg = std::move(svg.value());
        return out;
    });
}

void GraphViewerPanel::showResult(HloGraphResult result)
{
    m_result = std::move(result);
    const bool ok = m_result.error.isEmpty();
    m_exportDot->setEnabled(ok);
    m_exportSvg->setEnabled(ok && !m_result.svg.empty());
    if (!ok) {
        m_view->clearGraph();
        m_empty->setText(m_result.error);
        m_stack->setCurrentWidget(m_empty);
        m_status->setText(tr("No graph: %1").arg(m_result.error));
        emit computed();
        return;
    }
    m_stack->setCurrentWidget(m_view);
    m_view->setGraph(m_result.graph, m_result.layout, m_result.timeShare);
    const HloGraph &g = m_result.graph;
    QString status = tr("%1 in %2 (%3): %L4 nodes, %L5 edges")
                         .arg(QString::fromStdString(g.nodes.front().name),
                              QString::fromStdString(g.computation),
                              QString::fromStdString(g.module))
                         .arg(g.nodes.size())
                         .arg(g.edges.size());
    if (g.truncated)
        status += tr(" - cut at the node limit; lower the depth to see all of it");
    status += tr(" - colour: share of the device's op self time");
    m_status->setText(status);
    emit computed();
}

void GraphViewerPanel::exportAs(const QString &format)
{
    const std::string &text = format == QStringLiteral("svg") ? m_result.svg : m_result.dot;
    if (text.empty())
        return;
    const QString suggested = QString::fromStdString(m_result.graph.nodes.front().name)
                              + QStringLiteral(".") + format;
    const QString path = QFileDialog::getSaveFileName(this, tr("Export graph"), suggested,
                                                      format == QStringLiteral("svg")
                                                          ? tr("SVG images (*.svg)")
                                                          : tr("Graphviz DOT (*.dot *.gv)"));
    if (path.isEmpty())
        return;
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate)
        || file.write(text.data(), qint64(text.size())) != qint64(text.size())) {
        QMessageBox::warning(this, tr("Export graph"),
                             tr("Could not write %1: %2").arg(path, file.errorString()));
    }
}

} // namespace tracedesk::views
