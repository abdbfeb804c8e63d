#include "views/panels/memoryviewer/memoryviewerpanel.h"

#include "views/common/chartpalette.h"
#include "views/common/niceaxis.h"

#include "views/panels/pytorch/frameworkpages.h"

#include <QBarSet>
#include <QBarCategoryAxis>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHorizontalStackedBarSeries>
#include <QLabel>
#include <QLineSeries>
#include <QStackedWidget>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>

namespace tracedesk::views {

using namespace core::analysis;

namespace {

constexpr int kMaxBars = 400;   // beyond this the charts stop being readable anyway

double mib(int64_t bytes) { return double(bytes) / (1024.0 * 1024.0); }
QString mibText(int64_t bytes) { return QString::number(mib(bytes), 'f', 3) + QStringLiteral(" MiB"); }
QString q(const std::string &s) { return QString::fromStdString(s); }

QColor objectColor(int i)
{
    return QColor::fromHsv((i * 47) % 360, 150, 225);
}

QChartView *chartView(QChart *chart, QWidget *parent, int minHeight)
{
    chart->setMargins(QMargins(2, 2, 2, 2));
    chart->legend()->hide();
    auto *v = new QChartView(chart, parent);
    v->setRenderHint(QPainter::Antialiasing);
    v->setMinimumHeight(minHeight);
    followPalette(v);
    return v;
}

} // namespace

MemoryViewerPanel::MemoryViewerPanel(QWidget *parent) : QWidget(parent)
{
    m_module = new QComboBox(this);
    m_module->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_module->setMinimumContentsLength(24);
    m_space = new QComboBox(this);
    m_space->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_status = new QLabel(tr("No profile"), this);
    m_overview = new QLabel(this);
    m_overview->setTextFormat(Qt::RichText);
    m_overview->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
    m_card = new QLabel(tr("Hover a buffer to see its details."), this);
    m_card->setTextFormat(Qt::RichText);
    m_card->setWordWrap(true);
    m_card->setMinimumWidth(280);
    m_card->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    m_card->setTextInteractionFlags(Qt::TextSelectableByMouse);

    m_workspace = new QChart;
    m_workspace->legend()->show();
    m_byOrder = new QChart;
    m_byOrder->setTitle(tr("Buffers at the peak, by program order"));
    m_bySize = new QChart;
    m_bySize->setTitle(tr("Buffers at the peak, by size"));

    auto *top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Module:"), this));
    top->addWidget(m_module);
    top->addWidget(new QLabel(tr("Memory space:"), this));
    top->addWidget(m_space);
    top->addWidget(m_status, 1);

    auto *content = new QWidget(this);
    auto *grid = new QGridLayout(content);
    grid->setContentsMargins(0, 0, 0, 0);
    grid->addWidget(m_overview, 0, 0, 1, 2);
    auto *workspaceView = chartView(m_workspace, content, 220);
    m_workspace->legend()->show();
    m_workspace->legend()->setAlignment(Qt::AlignBottom);
    grid->addWidget(workspaceView, 1, 0);
    grid->addWidget(m_card, 1, 1, 3, 1);
    grid->addWidget(chartView(m_byOrder, content, 110), 2, 0);
    grid->addWidget(chartView(m_bySize, content, 110), 3, 0);
    grid->setRowStretch(1, 3);
    grid->setRowStretch(2, 1);
    grid->setRowStretch(3, 1);
    grid->setColumnStretch(0, 1);

    m_empty = new QLabel(tr("This profile has no HLO modules with a buffer assignment.\nThe "
                            "memory viewer needs the `Hlo Proto` stats of /host:metadata or\n"
                            "<module>(<program id>).hlo_proto.pb files beside the xplane."),
                         this);
    m_empty->setAlignment(Qt::AlignCenter);
    m_stack = new QStackedWidget(this);
    m_stack->addWidget(content);
    m_stack->addWidget(m_empty);

    // PyTorch traces get their own page; the panel's own content is the classic page.
    auto *classic = new QWidget(this);
    m_pytorch = new NotApplicableView(
        tr("Memory Viewer shows the buffers of a compiled XLA program; this PyTorch "
           "profile has none — see Memory Profile for its allocations."),
        this);
    m_pages = new FrameworkPages(this, classic, m_pytorch,
                                 [this](const AnalysisCachePtr &c) { m_pytorch->setAnalyses(c); });
    auto *layout = new QVBoxLayout(classic);
    layout->addLayout(top);
    layout->addWidget(m_stack, 1);

    connect(m_module, &QComboBox::currentIndexChanged, this, [this] {
        const QSignalBlocker block(m_space);
        m_space->clear();
        computeModule();
    });
    connect(m_space, &QComboBox::currentIndexChanged, this, [this] { computeModule(); });
}

MemoryViewerPanel::~MemoryViewerPanel() = default;

void MemoryViewerPanel::setAnalyses(AnalysisCachePtr cache)
{
    cache = m_pages->route(std::move(cache));
    m_cache = std::move(cache);
    recompute();
}

QString MemoryViewerPanel::statusText() const { return m_status->text(); }
QString MemoryViewerPanel::overviewText() const { return m_overview->text(); }
QString MemoryViewerPanel::bufferCardText() const { return m_card->text(); }
const MemoryViewerResult *MemoryViewerPanel::result() const { return m_result ? &*m_result : nullptr; }

int MemoryViewerPanel::lifetimePointCount() const
{
    return m_lifetime ? int(m_lifetime->count()) : 0;
}

qreal MemoryViewerPanel::lifetimePenWidth() const
{
    return m_lifetime ? m_lifetime->pen().widthF() : 0;
}

void MemoryViewerPanel::recompute()
{
    m_modulesCompute.cancel();
    m_viewerCompute.cancel();
    m_modules.reset();
    m_result.reset();
    {
        const QSignalBlocker b1(m_module), b2(m_space);
        m_module->clear();
        m_space->clear();
    }
    showResult();
    if (!m_cache) {
        m_status->setText(tr("No profile"));
        return;
    }
    m_status->setText(tr("Computing..."));
    AnalysisCachePtr cache = m_cache;
    m_modulesCompute.start([cache] { return hloModuleSet(*cache); });
}

void MemoryViewerPanel::showModules(std::shared_ptr<const HloModuleSet> set)
{
    m_modules = std::move(set);
    const auto &mods = m_modules->index->modules();
    m_stack->setCurrentWidget(mods.empty() ? static_cast<QWidget *>(m_empty)
                                           : m_stack->widget(0));
    if (mods.empty()) {
        m_status->setText(tr("No HLO modules"));
        emit computed();
        return;
    }
    const QSignalBlocker block(m_module);
    int largest = 0;
    for (size_t i = 0; i < mods.size(); ++i) {
        m_module->addItem(q(mods[i]->entry.displayName()));
        if (mods[i]->entry.bytes.size() > mods[size_t(largest)]->entry.bytes.size())
            largest = int(i);
    }
    m_module->setCurrentIndex(largest);   // the biggest module is usually the model
    computeModule();
}

void MemoryViewerPanel::computeModule()
{
    if (!m_modules || m_module->currentIndex() < 0)
        return;
    const auto &mods = m_modules->index->modules();
    const auto *module = mods[size_t(m_module->currentIndex())].get();
    if (m_space->count() == 0) {
        const QSignalBlocker block(m_space);
        for (int64_t c : memorySpaces(module->proto))
            m_space->addItem(c == 0 ? tr("0 (default / HBM)") : QString::number(c), qlonglong(c));
        if (m_space->count() == 0)
            m_space->addItem(tr("0 (default / HBM)"), qlonglong(0));
    }
    MemoryViewerOptions options;
    options.memoryColor = m_space->currentData().toLongLong();
    m_status->setText(tr("Computing..."));
    auto modules = m_modules;
    m_viewerCompute.start([modules, module, options] {
        return computeMemoryViewer(module->proto, module->entry.displayName(), options);
    });
}

void MemoryViewerPanel::showViewer(core::Result<MemoryViewerResult> r)
{
    if (r.ok()) {
        m_result = std::move(r).value();
        m_error.clear();
        m_status->setText(tr("%1 heap events, %2 buffers")
                              .arg(m_result->heapSizes.size())
                              .arg(m_result->buffers.size()));
    } else {
        m_result.reset();
        m_error = q(r.message());
        m_status->setText(m_error);
    }
    showResult();
    emit computed();
}

void MemoryViewerPanel::showResult()
{
    m_workspace->removeAllSeries();
    for (QChart *c : {m_workspace, m_byOrder, m_bySize}) {
        c->removeAllSeries();
        for (QAbstractAxis *axis : c->axes()) {
            c->removeAxis(axis);
            delete axis;
        }
    }
    m_lifetime = nullptr;
    m_card->setText(tr("Hover a buffer to see its details."));
    if (!m_result) {
        m_overview->clear();
        return;
    }
    const MemoryViewerResult &r = *m_result;
    const auto cell = [](const QString &title, const QString &value) {
        return QStringLiteral("<td style='padding:2px 14px 2px 0'><small>%1</small><br><b>%2</b></td>")
            .arg(title.toHtmlEscaped(), value.toHtmlEscaped());
    };
    m_overview->setText(
        QStringLiteral("<table><tr>") + cell(tr("Peak memory allocation"), mibText(r.peakHeapBytes))
        + cell(tr("Unpadded peak"), mibText(r.peakUnpaddedHeapBytes))
        + cell(tr("Padding overhead"), mibText(r.paddingOverheadBytes()))
        + cell(tr("Parameters"), mibText(r.entryParametersBytes))
        + cell(tr("Outputs"), mibText(r.maybeLiveOutBytes))
        + cell(tr("Temporaries"), mibText(r.temporaryBytes()))
        + cell(tr("Temporaries incl. fragmentation"), mibText(r.temporaryWithFragmentationBytes()))
        + cell(tr("Fragmentation"), QString::number(r.fragmentationPercent(), 'f', 1) + " %")
        + QStringLiteral("</tr></table>"));

    auto *padded = new QLineSeries;
    padded->setName(tr("Heap (MiB)"));
    auto *unpadded = new QLineSeries;
    unpadded->setName(tr("Unpadded heap (MiB)"));
    double maxY = 0;
    for (size_t i = 0; i < r.heapSizes.size(); ++i) {
        padded->append(double(i), mib(r.heapSizes[i]));
        unpadded->append(double(i), mib(r.unpaddedHeapSizes[i]));
        maxY = std::max(maxY, mib(r.heapSizes[i]));
    }
    padded->setPen(QPen(QColor(0x1a, 0x73, 0xe8), 2));
    unpadded->setPen(QPen(QColor(0x34, 0xa8, 0x53), 1.5, Qt::DashLine));
    auto *peak = new QLineSeries;
    peak->setName(tr("Peak"));
    if (r.peakPosition >= 0) {
        peak->append(r.peakPosition, 0);
        peak->append(r.peakPosition, maxY * 1.05);
    }
    peak->setPen(QPen(QColor(0xd9, 0x30, 0x25), 1, Qt::DotLine));
    m_lifetime = new QLineSeries;
    m_lifetime->setName(tr("Hovered buffer"));
    m_lifetime->setPen(QPen(QColor(0xf2, 0x99, 0x00), 3));
    auto *x = new QValueAxis;
    x->setTitleText(tr("Program order (heap-simulator events)"));
    const double lastEvent = std::max<double>(1, double(r.heapSizes.size()) - 1);
    // Integer labels: no more ticks than events, or short programs repeat the same number.
    applyNiceAxis(x, 0, lastEvent, int(std::min<double>(6, lastEvent + 1)));
    auto *y = new QValueAxis;
    y->setTitleText(tr("MiB"));
    // Without a heap simulation only indefinite buffers exist; keep their level in view.
    applyNiceAxis(y, 0, std::max(std::max(maxY, mib(r.peakHeapBytes)) * 1.05, 1e-3));
    m_workspace->addAxis(x, Qt::AlignBottom);
    m_workspace->addAxis(y, Qt::AlignLeft);
    for (QLineSeries *s : {padded, unpadded, peak, m_lifetime}) {
        m_workspace->addSeries(s);
        s->attachAxis(x);
        s->attachAxis(y);
    }
    m_workspace->setTitle(tr("%1: heap over program order").arg(q(r.moduleName)));
    fillBufferChart(m_byOrder, false);
    fillBufferChart(m_bySize, true);
    for (QChartView *view : findChildren<QChartView *>())
        applyChartPalette(view);
}

void MemoryViewerPanel::fillBufferChart(QChart *chart, bool bySize)
{
    const MemoryViewerResult &r = *m_result;
    const auto &objects = bySize ? r.maxHeapBySize : r.maxHeap;
    auto *series = new QHorizontalStackedBarSeries;
    series->setBarWidth(0.9);
    const int n = std::min<int>(int(objects.size()), kMaxBars);
    for (int k = 0; k < n; ++k) {
        const HeapObject &o = objects[size_t(k)];
        auto *set = new QBarSet(q(o.label));
        set->append(mib(o.size));
        set->setColor(objectColor(o.colorIndex));
        set->setBorderColor(objectColor(o.colorIndex).darker(140));
        const int programIndex = bySize ? r.bySizeToMaxHeap[size_t(k)] : k;
        connect(set, &QBarSet::hovered, this, [this, programIndex](bool status, int) {
            if (status)
                hoverBuffer(programIndex);
        });
        series->append(set);
    }
    chart->addSeries(series);
    auto *x = new QValueAxis;
    x->setTitleText(tr("MiB"));
    applyNiceAxis(x, 0, std::max(mib(r.peakHeapBytes), 1e-3));
    chart->addAxis(x, Qt::AlignBottom);
    series->attachAxis(x);
}

void MemoryViewerPanel::hoverBuffer(int index)
{
    if (!m_result || index < 0 || index >= int(m_result->maxHeap.size()))
        return;
    const MemoryViewerResult &r = *m_result;
    const HeapObject &o = r.maxHeap[size_t(index)];
    const ViewerBuffer *b = r.buffer(o.bufferId);
    if (m_lifetime) {
        m_lifetime->clear();
        if (b && b->spanStart >= 0) {
            const double level = mib(r.heapSizes[size_t(b->spanStart)]);
            m_lifetime->append(b->spanStart, level);
            m_lifetime->append(b->spanLimit, level);
        } else if (b) {   // indefinite: the whole program (the axis spans at least 0..1)
            m_lifetime->append(0, mib(b->size));
            m_lifetime->append(std::max<double>(1, double(r.heapSizes.size()) - 1), mib(b->size));
        }
        int64_t largest = 1;
        for (const HeapObject &h : r.maxHeap)
            largest = std::max(largest, h.size);
        QPen pen = m_lifetime->pen();
        pen.setWidthF(1.0 + 9.0 * double(o.size) / double(largest));
        m_lifetime->setPen(pen);
    }
    if (!b) {
        m_card->setText(tr("<b>%1</b><br>Size: %2<br>Buffers smaller than %3 bytes, grouped.")
                            .arg(q(o.label).toHtmlEscaped(), mibText(o.size))
                            .arg(kDefaultSmallBufferSize));
        return;
    }
    const double expansion = b->unpaddedSize > 0 ? double(b->size) / double(b->unpaddedSize) : 1.0;
    const auto row = [](const QString &k, const QString &v) {
        return QStringLiteral("<tr><td><small>%1</small></td><td>%2</td></tr>")
            .arg(k.toHtmlEscaped(), v.toHtmlEscaped());
    };
    m_card->setText(
        QStringLiteral("<b>%1</b><table>").arg(q(b->instructionName).toHtmlEscaped())
        + row(tr("Category"), QString::fromLatin1(bufferCategoryName(b->category)))
        + row(tr("Size"), mibText(b->size))
        + row(tr("Unpadded size"), mibText(b->unpaddedSize))
        + row(tr("Expansion"), QString::number(expansion, 'f', 2) + QStringLiteral("x"))
        + row(tr("Extra memory"), mibText(b->size - b->unpaddedSize))
        + row(tr("Shape"), q(b->shape))
        + row(tr("Framework op"), b->frameworkOp.empty() ? tr("(none)") : q(b->frameworkOp))
        + row(tr("Allocation type"), QString::fromLatin1(bufferCategoryName(b->category))
                                         + tr(" (allocation %1, offset %2)")
                                               .arg(b->allocationIndex).arg(b->offset))
        + row(tr("Op code"), q(b->opCode))
        + row(tr("Lifetime"), b->spanStart >= 0 ? tr("events %1 to %2").arg(b->spanStart).arg(b->spanLimit)
                                                : tr("whole program"))
        + QStringLiteral("</table>"));
}

} // namespace tracedesk::views
