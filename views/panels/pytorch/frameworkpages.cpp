#include "views/panels/pytorch/frameworkpages.h"

#include <QLabel>
#include <QVBoxLayout>

namespace tracedesk::views {

bool isPyTorchTrace(const core::Trace &trace)
{
    return trace.info.run.framework == "pytorch";
}

bool isPyTorchTrace(const core::analysis::AnalysisCachePtr &cache)
{
    return cache && isPyTorchTrace(cache->trace());
}

FrameworkPages::FrameworkPages(QWidget *panel, QWidget *classic, QWidget *pytorch, Feed feedPyTorch)
    : QStackedWidget(panel)
    , m_classic(classic)
    , m_pytorch(pytorch)
    , m_feed(std::move(feedPyTorch))
{
    addWidget(classic);
    addWidget(pytorch);
    setCurrentWidget(classic);
    auto *layout = new QVBoxLayout(panel);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(this);
}

core::analysis::AnalysisCachePtr FrameworkPages::route(core::analysis::AnalysisCachePtr cache)
{
    const bool pytorch = isPyTorchTrace(cache);
    setCurrentWidget(pytorch ? m_pytorch : m_classic);
    m_feed(pytorch ? cache : nullptr);
    return pytorch ? nullptr : cache;
}

NotApplicableView::NotApplicableView(const QString &reason, QWidget *parent) : QWidget(parent)
{
    m_reason = new QLabel(reason, this);
    m_reason->setObjectName(QStringLiteral("notApplicableReason"));
    m_reason->setWordWrap(true);
    m_reason->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_reason->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_reason);
    layout->addStretch(1);
}

QString NotApplicableView::reasonText() const
{
    return m_reason->text();
}

} // namespace tracedesk::views
